package canon

import (
	"bytes"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// TestAppendSpans checks that AppendSpans writes what Append writes and
// that each span holds its member: the key as the object's canonical form
// writes it (a lone surrogate kept), then the value's own canonical bytes.
func TestAppendSpans(t *testing.T) {
	docs := [][]byte{
		[]byte(`{}`), []byte(`[1,2]`), []byte(`"s"`), []byte(`null`),
		[]byte(`{"b":1,"a":[true,{"x":"y"}],"2":null,"1":"one","b":2}`),
		[]byte(`{"k\ud800":"lone","\u00e9":{"\n":"\u2028"}}`),
	}
	for _, d := range canontest.Docs() {
		docs = append(docs, d.JSON)
	}
	for _, doc := range docs {
		v, err := Parse(doc)
		if err != nil {
			t.Fatalf("%.40s: %v", doc, err)
		}
		prefix := []byte("xy")
		got, spans := AppendSpans(bytes.Clone(prefix), v, nil)
		if want := Append(bytes.Clone(prefix), v); !bytes.Equal(got, want) {
			t.Fatalf("%.40s: AppendSpans wrote %.80s, Append %.80s", doc, got, want)
		}
		ms := v.Members()
		if len(spans) != len(ms) {
			t.Fatalf("%.40s: %d spans for %d members", doc, len(spans), len(ms))
		}
		for i, m := range ms {
			sp := spans[i]
			if val := got[sp.Value:sp.End]; !bytes.Equal(val, Marshal(m.Value)) {
				t.Errorf("%.40s: member %d: value span %q, want %q", doc, i, val, Marshal(m.Value))
			}
			if got[sp.Value-1] != ':' || got[sp.Key] != '"' || (i > 0 && got[sp.Key-1] != ',') {
				t.Errorf("%.40s: member %d: key span %q", doc, i, got[sp.Key:sp.Value])
			}
		}
	}
}
