package canon

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

type transformCase struct {
	name, in, want string
}

func runTransform(t *testing.T, cases []transformCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Transform([]byte(c.in))
			if err != nil {
				t.Fatalf("Transform(%q): %v", c.in, err)
			}
			if string(got) != c.want {
				t.Errorf("Transform(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			// Parse and Marshal agree with Transform.
			v, err := Parse([]byte(c.in))
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if got := Marshal(v); string(got) != c.want {
				t.Errorf("Marshal(Parse(%q))\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestKeyOrder(t *testing.T) {
	runTransform(t, []transformCase{
		{"verified", `{"b":1,"a":2,"b":3,"10":4,"2":5,"-1":6,"01":7}`, `{"2":5,"10":4,"b":3,"a":2,"-1":6,"01":7}`},
		{"index limit", `{"4294967295":1,"4294967294":2,"a":3}`, `{"4294967294":2,"4294967295":1,"a":3}`},
		{"beyond uint32", `{"x":0,"99999999999":1,"5":2}`, `{"5":2,"x":0,"99999999999":1}`},
		{"zero", `{"a":1,"0":2,"00":3,"0.0":4," 1":5,"1 ":6,"+1":7}`, `{"0":2,"a":1,"00":3,"0.0":4," 1":5,"1 ":6,"+1":7}`},
		{"escaped index", `{"b":1,"\u0031":2}`, `{"1":2,"b":1}`},
		{"numeric order", `{"100":1,"20":2,"3":3}`, `{"3":3,"20":2,"100":1}`},
		{"duplicates", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"duplicate index", `{"1":1,"x":2,"1":3,"0":4}`, `{"0":4,"1":3,"x":2}`},
		{"duplicate kinds", `{"a":{"x":1},"a":[1],"a":"s"}`, `{"a":"s"}`},
		{"empty key", `{"":1,"a":2,"":3}`, `{"":3,"a":2}`},
		{"escaped duplicate", `{"a":1,"\u0061":2}`, `{"a":2}`},
		{"proto", `{"__proto__":1,"constructor":2}`, `{"__proto__":1,"constructor":2}`},
		{"nested", `{"z":{"2":1,"1":2},"y":[{"b":1,"a":2}]}`, `{"z":{"1":2,"2":1},"y":[{"b":1,"a":2}]}`},
		{"many duplicates", manyKeys(40, 3), manyKeysWant(40, 3)},
	})
}

// manyKeys builds an object with n keys repeated rounds times, larger than
// the linear duplicate scan.
func manyKeys(n, rounds int) string {
	var b strings.Builder
	b.WriteString("{")
	for r := range rounds {
		for i := range n {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			b.WriteString(`"k` + itoa(n-i) + `":` + itoa(r))
		}
	}
	b.WriteString("}")
	return b.String()
}

func manyKeysWant(n, rounds int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + itoa(n-i) + `":` + itoa(rounds-1))
	}
	b.WriteString("}")
	return b.String()
}

func itoa(i int) string { return string(AppendNumber(nil, float64(i))) }

func TestNumbers(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"-0.0", "0"}, {"0e5", "0"}, {"1.0", "1"}, {"1e2", "100"}, {"1E2", "100"},
		{"100", "100"}, {"-5", "-5"}, {"0.1", "0.1"}, {"0.25", "0.25"},
		{"5e-324", "5e-324"}, {"2e-324", "0"}, {"3e-324", "5e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"}, {"1.7976931348623159e308", "null"},
		{"1e400", "null"}, {"-1e400", "null"}, {"1e-400", "0"}, {"-1e-400", "0"},
		{"123e-20", "1.23e-18"}, {"1e21", "1e+21"}, {"1e20", "100000000000000000000"},
		{"999999999999999999999", "1e+21"}, {"123456789012345678901", "123456789012345680000"},
		{"1e-6", "0.000001"}, {"0.000001", "0.000001"}, {"1e-7", "1e-7"}, {"1.5e-7", "1.5e-7"},
		{"0.0000012345", "0.0000012345"}, {"12345e-10", "0.0000012345"},
		{"9007199254740993", "9007199254740992"}, {"9007199254740991", "9007199254740991"},
		{"-9007199254740991", "-9007199254740991"}, {"9007199254740992", "9007199254740992"},
		{"1152921504606846976", "1152921504606847000"}, {"18446744073709551616", "18446744073709552000"},
		{"0.30000000000000004", "0.30000000000000004"}, {"0.3", "0.3"}, {"1.000000000000000000001", "1"},
		{"4.35", "4.35"}, {"2.5e-7", "2.5e-7"}, {"1.5e300", "1.5e+300"}, {"-1.5e-300", "-1.5e-300"},
		{"123.456", "123.456"}, {"1e0", "1"}, {"1e+0", "1"}, {"1e-0", "1"}, {"10e-1", "1"},
		{"100000000000000000000000", "1e+23"}, {"1.2e22", "1.2e+22"}, {"0.1e-5", "0.000001"},
		{"2.2250738585072014e-308", "2.2250738585072014e-308"}, {"4.9406564584124654e-324", "5e-324"},
		{"123456789012345", "123456789012345"}, {"1234567890123456", "1234567890123456"},
		{"12345678901234567890", "12345678901234567000"}, {"0.1234567890123456789", "0.12345678901234568"},
		{"-1e-7", "-1e-7"}, {"1" + strings.Repeat("0", 400), "null"}, {"0." + strings.Repeat("0", 400) + "1", "0"},
	}
	var tc []transformCase
	for _, c := range cases {
		tc = append(tc, transformCase{c.in, c.in, c.want})
	}
	runTransform(t, tc)
}

func TestAppendNumber(t *testing.T) {
	tenth, three := 0.1, 3.0 // variables, so that the arithmetic is float64
	cases := []struct {
		f    float64
		want string
	}{
		{math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"}, {math.Copysign(0, -1), "0"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {math.SmallestNonzeroFloat64, "5e-324"},
		{1 << 53, "9007199254740992"}, {-(1 << 53) - 2, "-9007199254740994"}, {1e21, "1e+21"}, {1e-7, "1e-7"},
		{tenth + 2*tenth, "0.30000000000000004"}, {1 / three, "0.3333333333333333"}, {-2 / three, "-0.6666666666666666"},
		{123e-20, "1.23e-18"}, {1e-6, "0.000001"},
	}
	for _, c := range cases {
		if got := string(AppendNumber(nil, c.f)); got != c.want {
			t.Errorf("AppendNumber(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	// Every finite double round-trips, with at most 17 significant digits.
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := string(AppendNumber(nil, f))
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || (back != f && !(f == 0 && back == 0)) {
			t.Fatalf("AppendNumber(%b) = %q, which parses to %v (%v)", f, s, back, err)
		}
		mant, _, _ := strings.Cut(strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", ""), "0"), "e")
		if len(strings.TrimRight(mant, "0")) > 17 {
			t.Fatalf("AppendNumber(%b) = %q: more than 17 digits", f, s)
		}
	}
}

func TestStrings(t *testing.T) {
	runTransform(t, []transformCase{
		{"short escapes", `"\b\f\n\r\t\"\\\/"`, `"\b\f\n\r\t\"\\/"`},
		{"control", `"\u0000\u0001\u001f\u000B"`, `"\u0000\u0001\u001f\u000b"`},
		{"no html escaping", `"<a href='x'>&amp;</a>"`, `"<a href='x'>&amp;</a>"`},
		{"raw specials", `"\u007f\u2028\u2029\u0080\u00a0"`, "\"\x7f\u2028\u2029\u0080\u00a0\""},
		{"raw non-ASCII", `"é中😀"`, `"é中😀"`},
		{"escaped non-ASCII", `"\u00e9\u4E2D\uFFFF\uFEFF"`, "\"é中\uffff\ufeff\""},
		{"pair", `"\ud83d\ude00"`, `"😀"`},
		{"pair upper", `"\uD83D\uDE00"`, `"😀"`},
		{"lone high", `"\ud800"`, `"\ud800"`},
		{"lone high upper", `"\uDBFF"`, `"\udbff"`},
		{"lone low", `"\udc00"`, `"\udc00"`},
		{"reversed", `"\ude00\ud83d"`, `"\ude00\ud83d"`},
		{"high then text", `"\ud83dx"`, `"\ud83dx"`},
		{"high high low", `"\ud83d\ud83d\ude00"`, `"\ud83d😀"`},
		{"high then escape", `"\ud83d\n"`, `"\ud83d\n"`},
		{"lone key", `{"\ud800":1}`, `{"\ud800":1}`},
		{"lone and fffd keys", `{"\ud800":1,"\ufffd":2,"\ud800":3}`, "{\"\\ud800\":3,\"\ufffd\":2}"},
		{"empty", `""`, `""`},
		{"slash", `"a/b"`, `"a/b"`},
		{"mixed", `"x\ty\u0041"`, `"x\tyA"`},
	})
}

func TestInvalidUTF8(t *testing.T) {
	const r = "\uFFFD"
	cases := []struct{ name, in, want string }{
		{"lone continuation", "\x80", r},
		{"two continuations", "\x80\xbf", r + r},
		{"overlong 2", "\xc0\xaf", r + r},
		{"overlong c1", "\xc1\xbf", r + r},
		{"overlong 3", "\xe0\x80\xaf", r + r + r},
		{"overlong 4", "\xf0\x80\x80\xaf", r + r + r + r},
		{"surrogate in UTF-8", "\xed\xa0\x80", r + r + r},
		{"surrogate low in UTF-8", "\xed\xbf\xbf", r + r + r},
		{"beyond U+10FFFF", "\xf4\x90\x80\x80", r + r + r + r},
		{"F5", "\xf5\x80\x80\x80", r + r + r + r},
		{"FF FE", "\xff\xfe", r + r},
		{"truncated 2", "\xc2", r},
		{"truncated 3", "\xe2\x82", r},
		{"truncated 3 then ASCII", "\xe2\x82A", r + "A"},
		{"truncated 4", "\xf0\x9f\x98", r},
		{"truncated 4 short", "\xf0\x9f", r},
		{"truncated 4 then valid", "\xf0\x9f\x98\xc3\xa9", r + "é"},
		{"E0 A0 truncated", "\xe0\xa0", r},
		{"ED 9F ok", "\xed\x9f\xbf", "\ued7f"[:0] + "\xed\x9f\xbf"},
		{"F4 8F ok", "\xf4\x8f\xbf\xbf", "\U0010FFFF"},
		{"lead then lead", "\xc3\xc3\xa9", r + "é"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := `"` + c.in + `"`
			want := `"` + c.want + `"`
			got, err := Transform([]byte(in))
			if err != nil {
				t.Fatalf("Transform(%q): %v", in, err)
			}
			if string(got) != want {
				t.Errorf("Transform(%q) = %q, want %q", in, got, want)
			}
			if got := string(ReplaceInvalidUTF8([]byte(c.in))); got != c.want {
				t.Errorf("ReplaceInvalidUTF8(%q) = %q, want %q", c.in, got, c.want)
			}
			v, err := Parse([]byte(`{"` + c.in + `":"` + c.in + `"}`))
			if err != nil {
				t.Fatal(err)
			}
			if m := v.Members(); len(m) != 1 || m[0].Key != c.want || m[0].Value.Str() != c.want {
				t.Errorf("Parse: members %+v", m)
			}
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	cases := []struct {
		in, msg   string
		line, col int
	}{
		{``, "unexpected end of input", 1, 1},
		{` `, "unexpected end of input", 1, 2},
		{`[1,2`, "unexpected end of input", 1, 5},
		{`{"a":1,}`, "trailing comma before '}'", 1, 8},
		{`[1,]`, "trailing comma before ']'", 1, 4},
		{"[1,\n 2,\n  x]", "unexpected character 'x'", 3, 3},
		{`01`, "leading zero in number", 1, 2},
		{`-01`, "leading zero in number", 1, 3},
		{`1.`, "unexpected end of input in number (expected a digit after the decimal point)", 1, 3},
		{`1.e5`, "unexpected character 'e' in number (expected a digit after the decimal point)", 1, 3},
		{`1e+`, "unexpected end of input in number (expected a digit in the exponent)", 1, 4},
		{`-`, "unexpected end of input in number (expected a digit)", 1, 2},
		{`-a`, "unexpected character 'a' in number (expected a digit)", 1, 2},
		{`+1`, "unexpected character '+'", 1, 1},
		{`.5`, "unexpected character '.'", 1, 1},
		{`1 2`, "unexpected character '2' after the top-level value", 1, 3},
		{`{'a':1}`, `unexpected character "'" in object (expected a string key)`, 1, 2},
		{`{a:1}`, "unexpected character 'a' in object (expected a string key)", 1, 2},
		{`{"a" 1}`, "unexpected character '1' in object (expected ':' after the key)", 1, 6},
		{`{"a":1 "b":2}`, `unexpected character '"' in object (expected ',' or '}')`, 1, 8},
		{`[1 2]`, "unexpected character '2' in array (expected ',' or ']')", 1, 4},
		{`/*x*/1`, "unexpected character '/'", 1, 1},
		{"\"a\nb\"", "control character U+000A in string", 1, 3},
		{"\"a\tb\"", "control character U+0009 in string", 1, 3},
		{`"\x"`, `invalid escape '\x' in string`, 1, 2},
		{`"\'"`, `invalid escape "\'" in string`, 1, 2},
		{`"\u12G4"`, "bad \\u escape in string: 'G' is not a hex digit", 1, 6},
		{`"\u12`, "unexpected end of input in string", 1, 6},
		{`"abc`, "unexpected end of input in string", 1, 5},
		{"\xef\xbb\xbf1", "unexpected character U+FEFF", 1, 1},
		{"\xff", "invalid UTF-8 byte 0xff", 1, 1},
		{"\f1", "unexpected character U+000C", 1, 1},
		{"\u00a01", "unexpected character U+00A0", 1, 1},
		{`nul`, "unexpected end of input", 1, 4},
		{`truex`, "unexpected character 'x' after the top-level value", 1, 5},
		{`tru e`, "unexpected character U+0020", 1, 4},
		{`NaN`, "unexpected character 'N'", 1, 1},
		{`Infinity`, "unexpected character 'I'", 1, 1},
		{"\r\n\r\n  é", "unexpected character 'é'", 3, 3},
		{"[\"é\", x]", "unexpected character 'x'", 1, 7},
		{"\r\rx", "unexpected character 'x'", 3, 1},
	}
	for _, c := range cases {
		_, err := Transform([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Transform(%q): err %v, want a *SyntaxError", c.in, err)
			continue
		}
		if se.Msg != c.msg || se.Line != c.line || se.Column != c.col {
			t.Errorf("Transform(%q): %q at %d:%d, want %q at %d:%d", c.in, se.Msg, se.Line, se.Column, c.msg, c.line, c.col)
		}
		if _, err2 := Parse([]byte(c.in)); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Parse(%q): %v, Transform: %v", c.in, err2, err)
		}
	}
	_, err := Transform([]byte("[\n  1,\n  2,\n  x]"))
	if got, want := err.Error(), "unexpected character 'x' at line 4, column 3"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestDepth(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if got, err := Transform([]byte(ok)); err != nil || string(got) != ok {
		t.Errorf("depth %d: err %v", MaxDepth, err)
	}
	okObj := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	if got, err := Transform([]byte(okObj)); err != nil || string(got) != okObj {
		t.Errorf("object depth %d: err %v", MaxDepth, err)
	}
	for _, in := range []string{
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		strings.Repeat("[", 100000),
		strings.Repeat(`{"a":[`, 60000),
	} {
		_, err := Parse([]byte(in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != "nesting deeper than 10000 levels" {
			t.Errorf("deep input: err %v", err)
		}
	}
}

func TestAccessors(t *testing.T) {
	v, err := Parse([]byte(`{"s":"x\u00e9","n":-2.5,"t":true,"f":false,"z":null,"a":[1,"2"],"o":{"k":"v"},"l":"\ud800!","2":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind() != Object || v.Len() != 9 {
		t.Fatalf("kind %v len %d", v.Kind(), v.Len())
	}
	keys := []string{}
	for _, m := range v.Members() {
		keys = append(keys, m.Key)
	}
	if got := strings.Join(keys, ","); got != "2,s,n,t,f,z,a,o,l" {
		t.Errorf("keys %s", got)
	}
	if got := v.Get("s").Str(); got != "xé" {
		t.Errorf("s = %q", got)
	}
	if got := v.Get("n").Num(); got != -2.5 {
		t.Errorf("n = %v", got)
	}
	if !v.Get("t").Bool() || v.Get("f").Bool() || v.Get("f").Kind() != Bool {
		t.Error("booleans")
	}
	if v.Get("z") == nil || v.Get("z").Kind() != Null {
		t.Error("null member")
	}
	if v.Get("missing") != nil || v.Get("s").Get("x") != nil {
		t.Error("Get of a missing member")
	}
	a := v.Get("a").Elems()
	if len(a) != 2 || a[0].Num() != 1 || a[1].Str() != "2" || a[1].Num() != 0 || a[0].Str() != "" {
		t.Errorf("array %v", a)
	}
	if got := v.Get("l").Str(); got != "\uFFFD!" {
		t.Errorf("lone surrogate Str = %q", got)
	}
	if got := string(Marshal(v.Get("l"))); got != `"\ud800!"` {
		t.Errorf("lone surrogate Marshal = %q", got)
	}
	if v.Get("o").Get("k").Str() != "v" || v.Elems() != nil || v.Get("a").Members() != nil {
		t.Error("nested access")
	}
	var nilV *Value
	if nilV.Kind() != Null || nilV.Get("x") != nil || nilV.Str() != "" || string(Marshal(nilV)) != "null" {
		t.Error("nil value")
	}
	w, _ := Parse([]byte(`{"\ud800":1,"\ufffd":2}`))
	if m := w.Members(); len(m) != 2 || m[0].Key != "\uFFFD" || m[1].Key != "\uFFFD" || w.Get("\uFFFD").Num() != 1 {
		t.Errorf("lone surrogate keys %+v", m)
	}
	arr := NewArray([]*Value{NewString("a<b"), NewNumber(1e21), NewBool(true), nil, v.Get("o")})
	if got := string(Marshal(arr)); got != `["a<b",1e+21,true,null,{"k":"v"}]` {
		t.Errorf("NewArray = %s", got)
	}
	if got := string(Marshal(NewArray(nil))); got != "[]" {
		t.Errorf("empty NewArray = %s", got)
	}
	if got := string(AppendString(nil, "a\xffb\n")); got != "\"a\uFFFDb\\n\"" {
		t.Errorf("AppendString = %q", got)
	}
}

// TestParseCopies checks that Parse does not keep references to its input.
func TestParseCopies(t *testing.T) {
	in := []byte(`{"key":"value","k\n":"v\n","arr":["x"]}`)
	v, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	want := string(Marshal(v))
	for i := range in {
		in[i] = 'X'
	}
	if got := string(Marshal(v)); got != want {
		t.Errorf("after changing the input: %s, want %s", got, want)
	}
}

// wireTools returns the concatenated result.tools arrays of the JSON-RPC
// lines in a wire.jsonl file; lines that are not JSON are skipped, as the
// client does.
func wireTools(t testing.TB, path string) *Value {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tools []*Value
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		msg, err := Parse(line)
		if err != nil {
			continue
		}
		tools = append(tools, msg.Get("result").Get("tools").Elems()...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return NewArray(tools)
}

func corpusDirs(t testing.TB, root string) []string {
	dirs, err := filepath.Glob(filepath.Join(root, "*", "canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	return dirs
}

func checkCorpus(t *testing.T, root string) {
	dirs := corpusDirs(t, root)
	if len(dirs) == 0 {
		t.Fatalf("no corpus in %s", root)
	}
	for _, dir := range dirs {
		want, err := os.ReadFile(filepath.Join(dir, "canonical.json"))
		if err != nil {
			t.Fatal(err)
		}
		got := Marshal(wireTools(t, filepath.Join(dir, "wire.jsonl")))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: canonical form differs (%d bytes, want %d)", dir, len(got), len(want))
		}
		// The canonical form is a fixed point.
		again, err := Transform(want)
		if err != nil || !bytes.Equal(again, want) {
			t.Errorf("%s: Transform(canonical.json) is not the identity: %v", dir, err)
		}
	}
}

func TestCorpusTestdata(t *testing.T) { checkCorpus(t, filepath.Join("testdata", "corpus")) }

func TestCorpusShared(t *testing.T) {
	checkCorpus(t, filepath.Join(testpeers.Shared(t), "corpus"))
}

func checkPublished(t *testing.T, root string) {
	files, err := filepath.Glob(filepath.Join(root, "*", "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	measured := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if s := m.Get("status").Str(); s != "measured" && s != "dynamic" {
			continue
		}
		measured++
		sum := sha256.Sum256(Marshal(m.Get("rawToolsCapture")))
		if got, want := hex.EncodeToString(sum[:]), m.Get("canonicalSha256").Str(); got != want {
			t.Errorf("%s: sha256 %s, want %s", file, got, want)
		}
	}
	if measured == 0 {
		t.Fatalf("no measured files in %s", root)
	}
}

func TestPublishedTestdata(t *testing.T) { checkPublished(t, filepath.Join("testdata", "published")) }

func TestPublishedShared(t *testing.T) {
	checkPublished(t, filepath.Join(testpeers.Shared(t), "published"))
}

// corpusSeeds returns the canonical files of the testdata corpus, as fuzz
// seeds.
func corpusSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, dir := range corpusDirs(t, filepath.Join("testdata", "corpus")) {
		b, err := os.ReadFile(filepath.Join(dir, "canonical.json"))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzCanon checks the properties of the canonical form: it is valid JSON,
// Transform is idempotent, and the output parses to an equal value.
func FuzzCanon(f *testing.F) {
	for _, s := range trickySeeds {
		f.Add([]byte(s))
	}
	for _, s := range corpusSeeds(f) {
		f.Add(s)
	}
	for _, s := range canontest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Transform(data)
		v, perr := Parse(data)
		if (err == nil) != (perr == nil) || (err != nil && err.Error() != perr.Error()) {
			t.Fatalf("Transform err %v, Parse err %v", err, perr)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		if !bytes.Equal(Marshal(v), out) {
			t.Fatalf("Marshal(Parse) %q != Transform %q", Marshal(v), out)
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON: %q", out)
		}
		again, err := Transform(out)
		if err != nil {
			t.Fatalf("Transform(output %q): %v", out, err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
		w, err := Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(v, w) {
			t.Fatalf("output parses to a different value: %q", out)
		}
	})
}

// equal reports whether a and b are the same JSON value.
func equal(a, b *Value) bool {
	if a.Kind() == Number && (math.IsInf(a.Num(), 0) || math.IsNaN(a.Num())) {
		// JSON.parse gives Infinity for 1e400; JSON.stringify writes null.
		return b.Kind() == Null
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case Null:
		return true
	case Bool:
		return a.Bool() == b.Bool()
	case Number:
		return a.Num() == b.Num()
	case String:
		return a.str() == b.str()
	case Array:
		ea, eb := a.Elems(), b.Elems()
		if len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			if !equal(ea[i], eb[i]) {
				return false
			}
		}
		return true
	case Object:
		ma, mb := a.members(), b.members()
		if len(ma) != len(mb) {
			return false
		}
		for i := range ma {
			if ma[i].Key != mb[i].Key || !equal(ma[i].Value, mb[i].Value) {
				return false
			}
		}
		return true
	}
	return false
}

func TestSmallAPI(t *testing.T) {
	var zero Value
	if zero.Kind() != Null || string(Marshal(&zero)) != "null" || zero.Len() != 0 {
		t.Error("the zero Value is not null")
	}
	kinds := map[Kind]string{Null: "null", Bool: "bool", Number: "number", String: "string", Array: "array", Object: "object", 9: "invalid"}
	for k, want := range kinds {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q", k, k.String())
		}
	}
	v, err := Parse([]byte(`{"s":"ab\ud800","a":[1,2,3],"o":{"x":1},"n":1,"e":"","ea":[],"eo":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"s": 5, "a": 3, "o": 1, "n": 0, "e": 0, "ea": 0, "eo": 0, "missing": 0} {
		if got := v.Get(key).Len(); got != want {
			t.Errorf("Len of %s = %d, want %d", key, got, want)
		}
	}
	if k := v.Get("eo").Kind(); k != Object || v.Get("ea").Kind() != Array || v.Get("e").Kind() != String {
		t.Errorf("empty kinds: %v", k)
	}
	if got := NewString("a\xc3").Str(); got != "a\uFFFD" {
		t.Errorf("NewString = %q", got)
	}
	if NewBool(false).Bool() || !NewBool(true).Bool() || NewNumber(-2).Num() != -2 {
		t.Error("constructors")
	}
}

// TestLarge covers objects and arrays bigger than the slabs, with
// duplicates found through the map.
func TestLarge(t *testing.T) {
	const n = 2000
	var in, want strings.Builder
	in.WriteString("[")
	want.WriteString("[")
	for i := range n {
		if i > 0 {
			in.WriteString(",")
			want.WriteString(",")
		}
		in.WriteString(itoa(i))
		want.WriteString(itoa(i))
	}
	in.WriteString(`,` + manyKeys(n, 2) + `]`)
	want.WriteString(`,` + manyKeysWant(n, 2) + `]`)
	runTransform(t, []transformCase{{"large", in.String(), want.String()}})
	// Keys that are array indexes, in a large object.
	var obj strings.Builder
	obj.WriteString("{")
	for i := n - 1; i >= 0; i-- {
		obj.WriteString(`"` + itoa(i) + `":0,`)
	}
	obj.WriteString(`"x":1}`)
	got, err := Transform([]byte(obj.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), `{"0":0,"1":0,"2":0,`) || !strings.HasSuffix(string(got), `"1999":0,"x":1}`) {
		t.Errorf("large index object: %.60s...", got)
	}
}

// TestSpecial checks the eight-byte scan against a byte-by-byte one.
func TestSpecial(t *testing.T) {
	isSpecial := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80 }
	var w [8]byte
	check := func() {
		want := false
		for _, c := range w {
			want = want || isSpecial(c)
		}
		x := uint64(0)
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(w[i])
		}
		if got := special(x) != 0; got != want {
			t.Fatalf("special(% x) = %v, want %v", w, got, want)
		}
		if got := !plain(x, true); got != want {
			t.Fatalf("plain(% x, true) = %v, want %v", w, !got, !want)
		}
	}
	// Random words over bytes near the boundaries.
	r := rand.New(rand.NewPCG(3, 4))
	near := []byte{0, 0x1f, 0x20, 0x21, '"', '"' + 1, '\\', '\\' + 1, 0x7f, 0x80, 0x9f, 0xa0, 0xfe, 0xff, 'a'}
	for range 200000 {
		for i := range w {
			w[i] = near[r.IntN(len(near))]
		}
		check()
	}
	// Every byte value in every position, among plain and special
	// neighbours.
	for _, fill := range []byte{'a', 0x1f, '"', 0x80, 0xff, 0x21, 0x5c} {
		for pos := range 8 {
			for c := range 256 {
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				check()
			}
		}
	}
}

// TestConcurrentReads reads one tree from several goroutines (run with
// -race).
func TestConcurrentReads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "airbnb", "canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte)
	for range 4 {
		go func() {
			for _, tool := range v.Elems() {
				_ = tool.Get("name").Str()
				_ = tool.Members()
			}
			done <- Marshal(v)
		}()
	}
	for range 4 {
		if got := <-done; !bytes.Equal(got, data) {
			t.Error("concurrent Marshal differs")
		}
	}
}
