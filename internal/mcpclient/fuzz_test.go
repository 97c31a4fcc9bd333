package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// filterAll runs data through a stdoutFilter, reading in chunks of n bytes.
func filterAll(data []byte, n, max int) ([]byte, *recorder) {
	rec := newRecorder(1 << 20)
	for i := 1; i <= 5; i++ {
		rec.outgoing([]byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"m"}`))
	}
	f := newStdoutFilter(&ends{}, bufio.NewReaderSize(bytes.NewReader(data), 16), io.NopCloser(nil), rec, max)
	defer f.Close()
	var out []byte
	buf := make([]byte, n)
	for {
		k, err := f.Read(buf)
		out = append(out, buf[:k]...)
		if err != nil {
			break
		}
	}
	return out, rec
}

func FuzzStdoutFilter(f *testing.F) {
	f.Add([]byte("banner\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\nnot json\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"d\":\"caf\xe9\"}}\r\n[1,2]\n{\"a\":1}\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"x\"}"))
	addBoundaryLines(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, rec := filterAll(data, 7, 256)
		// Everything handed on is whole lines of valid JSON in valid UTF-8.
		if len(out) > 0 && out[len(out)-1] != '\n' {
			t.Fatalf("output does not end a line: %q", out)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
			if len(out) == 0 {
				break
			}
			if !json.Valid(line) || !utf8.Valid(line) {
				t.Fatalf("handed on %q", line)
			}
		}
		// The chunk size of the reader does not change the outcome.
		out2, rec2 := filterAll(data, 1, 256)
		if !bytes.Equal(out, out2) || !reflect.DeepEqual(rec.responses, rec2.responses) || rec.skipped != rec2.skipped {
			t.Fatalf("reading in chunks of 1 differs")
		}
	})
}

// tapAll runs an SSE stream through an sseTap in chunks of n bytes and
// returns what the recorder kept.
func tapAll(data []byte, n int) (*recorder, error) {
	rec := newRecorder(1 << 20)
	for i := 1; i <= 5; i++ {
		rec.outgoing([]byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"m"}`))
	}
	tap := &sseTap{rc: io.NopCloser(bytes.NewReader(data)), rec: rec, max: 512}
	buf := make([]byte, n)
	for {
		_, err := tap.Read(buf)
		if err == io.EOF {
			return rec, nil
		}
		if err != nil {
			return rec, err
		}
	}
}

func FuzzSSETap(f *testing.F) {
	f.Add([]byte("event: endpoint\ndata: /message?s=1\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"))
	f.Add([]byte("id: 7\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":2,\"result\":{\"a\":[]}}\r\n\r\n: comment\n\n"))
	f.Add([]byte("data:{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n\n"))
	addBoundarySSE(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, errA := tapAll(data, 4096)
		b, errB := tapAll(data, 1)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("errors differ by chunk size: %v / %v", errA, errB)
		}
		if errA == nil && !reflect.DeepEqual(a.responses, b.responses) {
			t.Fatalf("recorded messages differ by chunk size")
		}
	})
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a"}],"nextCursor":"2"}`), "tools")
	f.Add([]byte(`{"tools":{},"nextCursor":3}`), "tools")
	f.Add([]byte(`{"prompts":null}`), "prompts")
	f.Add([]byte(`[]`), "tools")
	addBoundaryPages(f)
	f.Fuzz(func(t *testing.T, raw []byte, key string) {
		cursor, fail := parsePage(raw, key, "x")
		if fail != nil && cursor != "" {
			t.Fatal("a failed page returned a cursor")
		}
		if fail == nil && !json.Valid(raw) {
			t.Fatal("accepted invalid JSON")
		}
		_ = checkTools([]json.RawMessage{raw}, 100)
	})
}

// nested returns a JSON-RPC response whose result nests depth levels in
// all (the envelope's object is the first).
func nested(id, depth int) []byte {
	// {"jsonrpc":"2.0","id":N,"result":{"a":[[...]]}}: 2 levels of objects.
	inner := depth - 2
	return []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"result":{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + "}}\n")
}

func TestFilterDepthLimit(t *testing.T) {
	out, rec := filterAll(nested(1, MaxDepth), 4096, 1<<20)
	if rec.failure() != nil || rec.count("m") != 1 || len(out) == 0 {
		t.Errorf("%d levels: failure %v, %d responses", MaxDepth, rec.failure(), rec.count("m"))
	}
	_, rec = filterAll(nested(1, MaxDepth+1), 4096, 1<<20)
	if f := rec.failure(); f == nil || f.status != StatusProtocolError || !strings.Contains(f.detail, "nests deeper than the 1000 levels") {
		t.Errorf("%d levels: failure %+v", MaxDepth+1, f)
	}
}

func TestFilterNonRPCBound(t *testing.T) {
	line := strings.Repeat("x", 1023) + "\n"
	under := strings.Repeat(line, maxNonRPCBytes/len(line))
	resp := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	resp2 := `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	// Up to the bound before each message, as often as it likes.
	_, rec := filterAll([]byte(under+resp+under+resp2), 4096, 1<<20)
	if rec.failure() != nil || rec.count("m") != 2 {
		t.Errorf("under the bound: failure %v, %d responses", rec.failure(), rec.count("m"))
	}
	_, rec = filterAll([]byte(under+line+resp), 4096, 1<<20)
	if f := rec.failure(); f == nil || !strings.Contains(f.detail, "stdout is not JSON-RPC") || rec.count("m") != 0 {
		t.Errorf("over the bound: failure %+v, %d responses", f, rec.count("m"))
	}
}

// TestFilterDropsNotifications: notifications are counted, never handed
// to the SDK; requests and responses are.
func TestFilterDropsNotifications(t *testing.T) {
	in := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","id":null}` + "\n" +
		`{"jsonrpc":"2.0","id":"p","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	out, rec := filterAll([]byte(in), 4096, 1<<20)
	want := `{"jsonrpc":"2.0","id":"p","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	if string(out) != want {
		t.Errorf("handed on %q, want %q", out, want)
	}
	if rec.notices["notifications/message"] != 1 || rec.notices["notifications/tools/list_changed"] != 1 || rec.serverReq["ping"] != 1 {
		t.Errorf("notices %v, requests %v", rec.notices, rec.serverReq)
	}
}
