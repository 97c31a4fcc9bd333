package render

import (
	"bytes"
	"testing"
)

func TestJSONEmptySlices(t *testing.T) {
	type inner struct {
		Names []string `json:"names"`
		Maybe []string `json:"maybe,omitempty"`
		Bytes []byte   `json:"bytes"`
	}
	type Embedded struct {
		Shared []int `json:"shared"`
	}
	type report struct {
		*Embedded
		Rows    []inner        `json:"rows"`
		Empty   []inner        `json:"empty"`
		Ptr     *inner         `json:"ptr"`
		NilPtr  *inner         `json:"nilPtr"`
		Any     any            `json:"any"`
		Nested  [][]string     `json:"nested"`
		Map     map[string]int `json:"map"`
		Skip    []string       `json:"-"`
		private []string
	}
	r := report{Embedded: &Embedded{}, Rows: []inner{{}}, Ptr: &inner{}, Any: &inner{}, Nested: [][]string{nil, {"a"}}}
	_ = r.private // unexported: never written, never filled
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	want := `{
  "shared": [],
  "rows": [
    {
      "names": [],
      "bytes": null
    }
  ],
  "empty": [],
  "ptr": {
    "names": [],
    "bytes": null
  },
  "nilPtr": null,
  "any": {
    "names": [],
    "bytes": null
  },
  "nested": [
    [],
    [
      "a"
    ]
  ],
  "map": null
}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// A pointer is filled in place; so is a value behind it.
	p := &report{}
	b.Reset()
	if err := JSON(&b, p); err != nil {
		t.Fatal(err)
	}
	if p.Rows == nil || p.Empty == nil {
		t.Errorf("the report's own slices are still nil: %+v", p)
	}
	if err := JSON(&b, nil); err != nil {
		t.Fatal(err)
	}
}
