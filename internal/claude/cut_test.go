package claude

import (
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	ascii := func(n int) string { return strings.Repeat("a", n) }
	const emoji = "😀" // U+1F600: 4 bytes, 2 UTF-16 code units
	const e = "é"     // U+00E9: 2 bytes, 1 code unit
	const cjk = "語"   // U+8A9E: 3 bytes, 1 code unit
	tests := []struct {
		name string
		in   string
		want string
		cut  bool
	}{
		{"empty", "", "", false},
		{"short", "hello", "hello", false},
		{"exactly the limit", ascii(CutLimit), ascii(CutLimit), false},
		{"one over", ascii(CutLimit + 1), ascii(CutLimit) + CutMarker, true},
		{"far over", ascii(10 * CutLimit), ascii(CutLimit) + CutMarker, true},
		// Bytes are not the measure: 2048 two-byte characters are 4096
		// bytes and are not cut.
		{"2048 two-byte chars", strings.Repeat(e, CutLimit), strings.Repeat(e, CutLimit), false},
		{"2049 two-byte chars", strings.Repeat(e, CutLimit+1), strings.Repeat(e, CutLimit) + CutMarker, true},
		{"2048 three-byte chars", strings.Repeat(cjk, CutLimit), strings.Repeat(cjk, CutLimit), false},
		{"2049 three-byte chars", strings.Repeat(cjk, CutLimit+1), strings.Repeat(cjk, CutLimit) + CutMarker, true},
		// An astral character counts two code units.
		{"1024 emoji fit", strings.Repeat(emoji, 1024), strings.Repeat(emoji, 1024), false},
		{"1025 emoji", strings.Repeat(emoji, 1025), strings.Repeat(emoji, 1024) + CutMarker, true},
		// The limit falls inside a surrogate pair: the character goes.
		{"pair straddles the limit", ascii(CutLimit-1) + emoji + "b", ascii(CutLimit-1) + CutMarker, true},
		{"pair ends at the limit", ascii(CutLimit-2) + emoji + "b", ascii(CutLimit-2) + emoji + CutMarker, true},
		{"pair ends at the limit, nothing after", ascii(CutLimit-2) + emoji, ascii(CutLimit-2) + emoji, false},
		{"multi-byte straddles the byte 2048", ascii(CutLimit-1) + cjk, ascii(CutLimit-1) + cjk, false},
		// Invalid bytes count one unit each, as U+FFFD does.
		{"invalid bytes", strings.Repeat("\xff", CutLimit+1), strings.Repeat("\xff", CutLimit) + CutMarker, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Cut(tt.in)
			if got != tt.want || cut != tt.cut {
				t.Errorf("Cut: got %d units (cut %v), want %d units (cut %v)", UTF16Len(got), cut, UTF16Len(tt.want), tt.cut)
			}
			if cut && UTF16Len(got) > CutLimit+UTF16Len(CutMarker) {
				t.Errorf("cut string is %d units, more than %d", UTF16Len(got), CutLimit+UTF16Len(CutMarker))
			}
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "é": 1, "語": 1, "😀": 2, "\xff\xfe": 2, CutMarker: 13} {
		if got := UTF16Len(in); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", in, got, want)
		}
	}
}
