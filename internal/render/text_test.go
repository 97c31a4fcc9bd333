package render

import (
	"strings"
	"testing"
)

func TestInt(t *testing.T) {
	for in, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 2823: "2,823", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Int(in); got != want {
			t.Errorf("Int(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestTable(t *testing.T) {
	tb := Table{Header: []string{"tool", "tokens"}, Align: []Align{Left, Right}}
	tb.Add("read_file", "179")
	tb.Add("é", "1,234")
	var b strings.Builder
	tb.Write(&b)
	want := "tool       tokens\nread_file     179\né           1,234\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
