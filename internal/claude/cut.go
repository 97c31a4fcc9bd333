package claude

// Claude Code cuts every MCP tool description and the server instructions
// before they reach the model. The limit is 2,048 characters as JavaScript
// counts them (UTF-16 code units, String.prototype.length), not bytes: the
// Claude Code 2.1.234 binary reads
// `W.length>2048 ? cut(W,2048)+"… [truncated]" : W`
// (anthropics/claude-code#87650, #81268, #41593; the docs say "2KB each").
// A longer string keeps its first 2,048 code units and gets [CutMarker]
// appended, so a cut string is 2,061 code units long.
const (
	// CutLimit is the length, in UTF-16 code units, above which Claude Code
	// cuts a description or instructions.
	CutLimit = 2048
	// CutMarker is what Claude Code appends to a cut string: U+2026, a
	// space and "[truncated]".
	CutMarker = "… [truncated]"
)

// Cut applies Claude Code's 2 KB cut to s and reports whether it cut.
//
// s is measured in UTF-16 code units: a character outside the Basic
// Multilingual Plane (most emoji) counts 2, everything else 1, whatever its
// UTF-8 length. When the limit falls between the two halves of a surrogate
// pair, the whole character is dropped rather than split: Go strings cannot
// hold half a character, and a lone surrogate would not survive the
// request's JSON. How Claude Code's own helper treats that one position is
// not on record; the cut string is then one code unit shorter than
// CutLimit.
//
// Invalid UTF-8 bytes count as one code unit each (each becomes U+FFFD
// when decoded, as Node decodes them).
func Cut(s string) (string, bool) {
	if len(s) <= CutLimit {
		// At most CutLimit bytes, so at most CutLimit code units.
		return s, false
	}
	units := 0
	for i, r := range s {
		n := 1
		if r > 0xFFFF {
			n = 2
		}
		if units+n > CutLimit {
			return s[:i] + CutMarker, true
		}
		units += n
	}
	return s, false
}

// UTF16Len returns the length of s as JavaScript counts it (UTF-16 code
// units). Invalid UTF-8 bytes count one each, as U+FFFD.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}
