package testpeers

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"time"
)

// Browser is headless Chromium driven over the DevTools protocol: a page
// whose window size is set exactly (the command line's --window-size has a
// floor of 500 px), whose every request is recorded, whose state a script
// reads, and whose screenshots are taken at the size set.
type Browser struct {
	c    *Chromium
	cmd  *exec.Cmd
	ws   *wsConn
	next int
	// Requests are the URLs the page requested since the last Load,
	// itself included.
	Requests []string
	loaded   bool
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://[^\s]+)`)

// Browser starts Chromium with a debugging port on loopback and connects
// to its first page. It stops when the test ends.
func (c *Chromium) Browser() *Browser {
	c.tb.Helper()
	profile := c.profile()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, c.bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir="+profile, "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		c.tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.tb.Fatal(err)
	}
	c.tb.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var browserURL string
	select {
	case browserURL = <-found:
	case <-time.After(60 * time.Second):
		c.tb.Fatal("chromium did not say where its DevTools listen")
	}
	u, err := url.Parse(browserURL)
	if err != nil {
		c.tb.Fatal(err)
	}
	// The first page's socket, from the list of targets.
	var wsURL string
	for range 50 {
		resp, err := http.Get("http://" + u.Host + "/json/list")
		if err == nil {
			var targets []struct{ Type, WebSocketDebuggerURL string }
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			for _, t := range targets {
				if t.Type == "page" {
					wsURL = t.WebSocketDebuggerURL
				}
			}
		}
		if wsURL != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if wsURL == "" {
		c.tb.Fatal("chromium has no page to drive")
	}
	ws, err := dialWS(wsURL)
	if err != nil {
		c.tb.Fatal(err)
	}
	c.tb.Cleanup(func() { ws.conn.Close() })
	b := &Browser{c: c, cmd: cmd, ws: ws}
	b.Call("Page.enable", nil, nil)
	b.Call("Network.enable", nil, nil)
	// Before any script of the page: a listener that keeps the page's
	// Content-Security-Policy violations in window.cspViolations.
	b.Call("Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.cspViolations = []; document.addEventListener("securitypolicyviolation", function (e) { window.cspViolations.push(e.violatedDirective + " " + e.blockedURI); });`}, nil)
	return b
}

// Call sends a DevTools command and decodes its result into out (nil to
// drop it), recording the events that arrive meanwhile.
func (b *Browser) Call(method string, params, out any) {
	b.c.tb.Helper()
	if err := b.call(method, params, out); err != nil {
		b.c.tb.Fatalf("devtools %s: %v", method, err)
	}
}

func (b *Browser) call(method string, params, out any) error {
	b.next++
	id := b.next
	if params == nil {
		params = map[string]any{}
	}
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	b.ws.conn.SetDeadline(time.Now().Add(90 * time.Second))
	if err := b.ws.write(msg); err != nil {
		return err
	}
	for {
		data, err := b.ws.read()
		if err != nil {
			return err
		}
		var m struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.ID == 0 {
			b.event(m.Method, m.Params)
			continue
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return errors.New(m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	}
}

func (b *Browser) event(method string, params json.RawMessage) {
	switch method {
	case "Network.requestWillBeSent":
		var p struct {
			Request struct{ URL string } `json:"request"`
		}
		json.Unmarshal(params, &p)
		b.Requests = append(b.Requests, p.Request.URL)
	case "Page.loadEventFired":
		b.loaded = true
	}
}

// Load sets the window's size and loads file, and returns once its load
// event fired.
func (b *Browser) Load(file string, width, height int) {
	b.c.tb.Helper()
	b.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	b.Requests, b.loaded = nil, false
	b.Call("Page.navigate", map[string]any{"url": "file://" + file}, nil)
	deadline := time.Now().Add(60 * time.Second)
	for !b.loaded {
		if time.Now().After(deadline) {
			b.c.tb.Fatalf("%s did not load", file)
		}
		// A no-op command drains the events that came.
		b.Call("Runtime.evaluate", map[string]any{"expression": "0"}, nil)
	}
}

// Dark sets prefers-color-scheme to dark (true) or light for the pages
// loaded after.
func (b *Browser) Dark(dark bool) {
	b.c.tb.Helper()
	v := "light"
	if dark {
		v = "dark"
	}
	b.Call("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": v}}}, nil)
}

// Eval runs a script's expression in the page (not bound by the page's
// Content-Security-Policy) and decodes its value into out.
func (b *Browser) Eval(expr string, out any) {
	b.c.tb.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		b.c.tb.Fatalf("the script threw: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.c.tb.Fatalf("the script's value: %v\n%s", err, r.Result.Value)
		}
	}
}

// Screenshot writes a PNG of the page's top height pixels, at the width
// set by Load (taller than the window: the page below the fold too).
func (b *Browser) Screenshot(png string, width, height int) {
	b.c.tb.Helper()
	var r struct {
		Data string `json:"data"`
	}
	b.Call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}, &r)
	data, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.c.tb.Fatal(err)
	}
	if err := os.WriteFile(png, data, 0o644); err != nil {
		b.c.tb.Fatal(err)
	}
}

// wsConn is the client side of a WebSocket (RFC 6455), as much of it as
// the DevTools protocol needs: text messages, fragments, ping and close.
type wsConn struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialWS(raw string) (*wsConn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, key)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, &http.Request{Method: "GET"})
	if err != nil {
		conn.Close()
		return nil, err
	}
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(h[:]) {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake with %s: %s", raw, resp.Status)
	}
	return &wsConn{conn: conn, r: r}, nil
}

func (w *wsConn) write(payload []byte) error { return w.frame(0x1, payload) }

func (w *wsConn) frame(op byte, payload []byte) error {
	var hdr bytes.Buffer
	hdr.WriteByte(0x80 | op)
	switch n := len(payload); {
	case n < 126:
		hdr.WriteByte(0x80 | byte(n))
	case n <= 0xFFFF:
		hdr.WriteByte(0x80 | 126)
		binary.Write(&hdr, binary.BigEndian, uint16(n))
	default:
		hdr.WriteByte(0x80 | 127)
		binary.Write(&hdr, binary.BigEndian, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	hdr.Write(mask[:])
	masked := make([]byte, len(payload))
	for i, c := range payload {
		masked[i] = c ^ mask[i%4]
	}
	_, err := w.conn.Write(append(hdr.Bytes(), masked...))
	return err
}

// read returns the next whole text message, answering pings.
func (w *wsConn) read() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.r, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0F
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var l uint16
			if err := binary.Read(w.r, binary.BigEndian, &l); err != nil {
				return nil, err
			}
			n = uint64(l)
		case 127:
			if err := binary.Read(w.r, binary.BigEndian, &n); err != nil {
				return nil, err
			}
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(w.r, mask[:]); err != nil {
				return nil, err
			}
		}
		if n > 256<<20 {
			return nil, fmt.Errorf("websocket frame of %d bytes", n)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(w.r, data); err != nil {
			return nil, err
		}
		if h[1]&0x80 != 0 {
			for i := range data {
				data[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8:
			return nil, errors.New("websocket closed")
		case 0x9:
			if err := w.frame(0xA, data); err != nil {
				return nil, err
			}
			continue
		case 0xA:
			continue
		}
		msg = append(msg, data...)
		if fin {
			return msg, nil
		}
	}
}
