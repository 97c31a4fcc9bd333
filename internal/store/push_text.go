package store

import (
	"strings"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// sharedValues makes the values of a local row, read for a push, fit the
// shared store's columns, in place, after the row's identity is taken
// from them as they are (so that what a push sends again is recognised):
// PostgreSQL's text holds neither NUL (0x00) nor invalid UTF-8, which a
// transcript may write and SQLite keeps, so each becomes U+FFFD; a
// recorded cost outside [0, transcript.MaxCostUSD], stored before ingest
// checked it, is none.
func sharedValues(cols []string, v []any) {
	for i, x := range v {
		switch x := x.(type) {
		case string:
			if strings.IndexByte(x, 0) >= 0 || !utf8.ValidString(x) {
				v[i] = strings.ReplaceAll(strings.ToValidUTF8(x, "\uFFFD"), "\x00", "\uFFFD")
			}
		case float64:
			if cols[i] == "cost_usd" && !transcript.ValidCost(x) {
				v[i] = nil
			}
		}
	}
}
