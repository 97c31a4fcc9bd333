package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"unicode/utf8"
)

// filterAll runs data through a stdoutFilter, reading in chunks of n bytes.
func filterAll(data []byte, n, max int) ([]byte, *recorder) {
	rec := newRecorder(1 << 20)
	for i := 1; i <= 5; i++ {
		rec.outgoing([]byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"m"}`))
	}
	f := &stdoutFilter{ends: &ends{}, r: bufio.NewReaderSize(bytes.NewReader(data), 16), c: io.NopCloser(nil), rec: rec, max: max}
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
