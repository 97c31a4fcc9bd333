package canon

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// boundarySizes are the sizes on both sides of every power of two up to
// past slabMax, where the parser's slabs start, grow and give way to
// dedicated allocations.
var boundarySizes = []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129,
	255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2049, 4097}

// intArray returns "[0,1,...,n-1]" and intObject {"k0":0,...}, with integer-like
// keys in reverse order when index is set.
func intArray(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(itoa(i))
	}
	b.WriteByte(']')
	return b.String()
}

func intObject(n int, index bool) (in, want string) {
	var b, w strings.Builder
	b.WriteByte('{')
	w.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
			w.WriteByte(',')
		}
		if index {
			fmt.Fprintf(&b, `"%d":%d`, n-1-i, n-1-i)
			fmt.Fprintf(&w, `"%d":%d`, i, i)
		} else {
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
			fmt.Fprintf(&w, `"k%d":%d`, i, i)
		}
	}
	b.WriteByte('}')
	w.WriteByte('}')
	return b.String(), w.String()
}

// TestSlabBoundaries parses arrays and objects of every boundary size,
// first in the input (fresh slabs), after a partly used slab, and after a
// full one, through Parse and through Transform's tree of a reordered
// object.
func TestSlabBoundaries(t *testing.T) {
	for _, n := range boundarySizes {
		arr := intArray(n)
		obj, objWant := intObject(n, false)
		idx, idxWant := intObject(n, true)
		for _, before := range []int{0, 1, 40, 64, 1000} {
			prefix := intArray(before)
			prefixObj, prefixObjWant := intObject(before, false)
			cases := []struct{ name, in, want string }{
				{"array", "[" + prefix + "," + arr + "]", "[" + prefix + "," + arr + "]"},
				{"object", "[" + prefixObj + "," + obj + "]", "[" + prefixObjWant + "," + objWant + "]"},
				{"index keys", "[" + prefixObj + "," + idx + "]", "[" + prefixObjWant + "," + idxWant + "]"},
				{"index keys in object", `{"1":` + prefixObj + `,"0":` + idx + `}`, `{"0":` + idxWant + `,"1":` + prefixObjWant + `}`},
				{"array in reordered object", `{"1":` + prefix + `,"0":` + arr + `}`, `{"0":` + arr + `,"1":` + prefix + `}`},
			}
			for _, c := range cases {
				name := fmt.Sprintf("%s/%d/after%d", c.name, n, before)
				v, err := Parse([]byte(c.in))
				if err != nil {
					t.Fatalf("%s: Parse: %v", name, err)
				}
				if got := Marshal(v); string(got) != c.want {
					t.Errorf("%s: Marshal(Parse) = %.80q..., want %.80q...", name, got, c.want)
				}
				got, err := Transform([]byte(c.in))
				if err != nil {
					t.Fatalf("%s: Transform: %v", name, err)
				}
				if !bytes.Equal(got, []byte(c.want)) {
					t.Errorf("%s: Transform = %.80q..., want %.80q...", name, got, c.want)
				}
			}
		}
	}
}
