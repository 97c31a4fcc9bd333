package serve

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentNumbersOutOfRange: a number in a tool's arguments too
// large for any number a tool reads (1e400, 400 digits) is refused with a
// tool error naming the argument in a user's words, never by Go's types.
func TestArgumentNumbersOutOfRange(t *testing.T) {
	dir := t.TempDir()
	cs, _ := connect(t, Options{
		Version: "test",
		Getenv:  func(k string) string { return map[string]string{"HOME": dir}[k] },
		Project: dir,
		DBPath:  filepath.Join(dir, "usage.db"),
	})
	huge := "1" + strings.Repeat("0", 400)
	for _, c := range []struct{ tool, args, want string }{
		{toolUsage, `{"days":1e400}`, "days is 1e400, a number too large to read"},
		{toolUsage, `{"days":-1e400}`, "days is -1e400, a number too large to read"},
		{toolUsage, `{"days":` + huge + `}`, "days is 1000000000"},
		{toolBlocks, `{"token_limit":1e999}`, "token_limit is 1e999, a number too large to read"},
		{toolRecent, `{"limit":2E+308}`, "limit is 2E+308, a number too large to read"},
		{toolUsage, `{"x":{"y":[1,1e400]}}`, "x.y[1] is 1e400, a number too large to read"},
		{toolUsage, `{"days":1e300}`, "days is 1e300, a number too large for a count"},
		{toolUsage, `{"limit":100000000000000000000}`, "limit is 100000000000000000000, a number too large for a count"},
		{toolUsage, `{"days":9223372036854775807}`, "days is 9223372036854775807, a number too large for a count"},
		{toolUsage, `{"limit":-9223372036854775809}`, "limit is -9223372036854775809, a number too large for a count"},
	} {
		msg := callErr(t, cs, c.tool, json.RawMessage(c.args))
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "Go struct") || strings.Contains(msg, "interface") || strings.Contains(msg, "float64") {
			t.Errorf("%s %s: %q, want it to say %q", c.tool, c.args, msg, c.want)
		}
		if len(msg) > 400 {
			t.Errorf("%s %s: a message of %d bytes", c.tool, c.args, len(msg))
		}
	}
	// Numbers in range are the tools' to judge, as before.
	for _, args := range []string{`{"days":1e10}`, `{"days":9007199254740993}`, `{"days":-1e18}`, `{"days":9223372036854774784}`} {
		if msg := callErr(t, cs, toolUsage, json.RawMessage(args)); !strings.Contains(msg, "days must be from 0") {
			t.Errorf("%s: %q", args, msg)
		}
	}
}
