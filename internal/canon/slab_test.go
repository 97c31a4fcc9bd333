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

// intArray returns [0,1,...,n-1].
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

// intObject returns an object of n members and its canonical form: keys
// "k0" to "kn-1", or array-index keys in descending order when index is set.
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
				{"array under an index key", `{"1":` + arr + `}`, `{"1":` + arr + `}`},
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

// TestCapBoundaries puts each of the parser's other limits on both sides:
// the string arena's chunk and its large-string cut, the interning caps of
// keys, strings and numbers, the longest shared string and key, and the
// object size at which duplicate keys are found through a map. Every input
// is canonical, so Parse, Marshal and Transform must give it back unchanged.
func TestCapBoundaries(t *testing.T) {
	type doc struct {
		name string
		in   string
	}
	var docs []doc
	add := func(name string, in string) { docs = append(docs, doc{name, in}) }
	// str is a JSON string of n bytes (at least its prefix) that starts with i.
	str := func(i, n int) string {
		s := fmt.Sprintf("s%d-", i)
		return `"` + s + strings.Repeat("x", max(n-len(s), 0)) + `"`
	}
	for _, n := range []int{arenaLarge - 1, arenaLarge, arenaLarge + 1} {
		for _, k := range []int{1, arenaChunk/n - 1, arenaChunk / n, arenaChunk/n + 1, 2*arenaChunk/n + 1} {
			var b strings.Builder
			b.WriteByte('[')
			for i := range k {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(str(i, n))
			}
			b.WriteByte(']')
			add(fmt.Sprintf("%d strings of %d bytes", k, n), b.String())
		}
	}
	// Strings that fill the arena's chunk exactly, then one more.
	for _, extra := range []int{-1, 0, 1} {
		var b strings.Builder
		b.WriteByte('[')
		total := 0
		for i := 0; total < arenaChunk+extra; i++ {
			n := min(1000, arenaChunk+extra-total)
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(str(i, n))
			total += n
		}
		b.WriteString(`,"after"]`)
		add(fmt.Sprintf("arena chunk %+d", extra), b.String())
	}
	for _, n := range []int{maxInterned - 1, maxInterned, maxInterned + 1} {
		var strs, nums, keys strings.Builder
		for round := range 2 {
			for i := range n {
				sep := ","
				if round == 0 && i == 0 {
					sep = ""
				}
				strs.WriteString(sep + `"v` + itoa(i) + `"`)
				nums.WriteString(sep + itoa(i) + ".5")
				if i > 0 {
					keys.WriteString(",")
				} else if round > 0 {
					keys.WriteString("},{")
				}
				keys.WriteString(`"k` + itoa(i) + `":` + itoa(i%7))
			}
		}
		add(fmt.Sprintf("%d distinct strings twice", n), "["+strs.String()+"]")
		add(fmt.Sprintf("%d distinct numbers twice", n), "["+nums.String()+"]")
		add(fmt.Sprintf("two objects of %d distinct keys", n), "[{"+keys.String()+"}]")
	}
	for _, n := range []int{maxShared - 1, maxShared, maxShared + 1, 63, 64, 65} {
		var b strings.Builder
		b.WriteByte('[')
		for i := range 40 {
			if i > 0 {
				b.WriteByte(',')
			}
			// Keys and values of length n, repeated, and differing in
			// their last byte.
			s := str(0, n-1)
			s = s[:len(s)-1] + string(rune('a'+i%3)) + `"`
			fmt.Fprintf(&b, `{%s:%s,"x":%s}`, s, s, s)
		}
		b.WriteByte(']')
		add(fmt.Sprintf("repeated keys and strings of %d bytes", n), b.String())
	}
	for _, d := range docs {
		v, err := Parse([]byte(d.in))
		if err != nil {
			t.Fatalf("%s: Parse: %v", d.name, err)
		}
		if got := Marshal(v); string(got) != d.in {
			t.Errorf("%s: Marshal(Parse) differs from the input (%d bytes, want %d)", d.name, len(got), len(d.in))
		}
		if got, err := Transform([]byte(d.in)); err != nil || string(got) != d.in {
			t.Errorf("%s: Transform differs from the input (err %v)", d.name, err)
		}
	}
}

// TestDuplicateKeysAtLinearLimit puts a duplicate key after objects of
// linearKeys-1, linearKeys and linearKeys+1 distinct keys, where the scan
// for duplicates gives way to a map, in the first, middle and last place.
func TestDuplicateKeysAtLinearLimit(t *testing.T) {
	for _, n := range []int{1, linearKeys - 1, linearKeys, linearKeys + 1, 2*linearKeys + 1} {
		for _, dup := range []int{0, n / 2, n - 1} {
			var in, want strings.Builder
			in.WriteByte('{')
			want.WriteByte('{')
			for i := range n {
				if i > 0 {
					in.WriteByte(',')
					want.WriteByte(',')
				}
				fmt.Fprintf(&in, `"k%d":%d`, i, i)
				v := i
				if i == dup {
					v = -1
				}
				fmt.Fprintf(&want, `"k%d":%d`, i, v)
			}
			fmt.Fprintf(&in, `,"k%d":-1}`, dup)
			want.WriteByte('}')
			name := fmt.Sprintf("%d keys, duplicate of %d", n, dup)
			runTransform(t, []transformCase{{name, in.String(), want.String()}})
		}
	}
}

// TestSizeHint checks the guess on both sides of its sample of 64 values:
// for values of one length it is the exact length with an eighth to spare,
// and for values whose lengths vary it stays near the exact length.
func TestSizeHint(t *testing.T) {
	for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 1000} {
		for _, varied := range []bool{false, true} {
			vals := make([]*Value, n)
			for i := range vals {
				s := "abcdefgh"
				if varied {
					s = strings.Repeat("x", i%10)
				}
				vals[i] = NewString(s)
			}
			exact := len(Marshal(NewArray(vals)))
			got := SizeHint(vals)
			// Each "abcdefgh" takes 10 bytes and a comma.
			if want := 11*n + 11*n/8 + 2; !varied && got != want {
				t.Errorf("%d values of one length: hint %d, want %d (exact length %d)", n, got, want, exact)
			}
			if got < exact*3/4 || got > exact*3/2+2 {
				t.Errorf("%d values (varied %v): hint %d, exact length %d", n, varied, got, exact)
			}
		}
	}
}
