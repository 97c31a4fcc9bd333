package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountFlagRanges: a count flag whose manual says "from 1" refuses 0
// and negative values as it refuses one over its range: exit 2, with the
// range named. Both sides of each bound.
func TestCountFlagRanges(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	db := filepath.Join(home, "usage.db")
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"usage", "--by", "month", "--last", "0"}, ExitError, "--last must be from 1 (this month alone) to 36525, not 0"},
		{[]string{"usage", "--by", "day", "--last", "-1"}, ExitError, "--last must be from 1 (this day alone) to 36525, not -1"},
		{[]string{"usage", "--by", "week", "--last", "36526"}, ExitError, "--last must be from 1 (this week alone) to 36525, not 36526"},
		{[]string{"usage", "--by", "month", "--last", "1"}, ExitOK, ""},
		{[]string{"usage", "--by", "month", "--last", "36525"}, ExitOK, ""},
		{[]string{"usage", "--by", "month"}, ExitOK, ""},
		{[]string{"blocks", "--live", "--refresh", "0"}, ExitError, "--refresh must be from 1 to 3600 seconds, not 0"},
		{[]string{"findings", "--repeat-min", "0"}, ExitError, "--repeat-min must be a positive number, got 0"},
		{[]string{"findings", "--session-usd", "NaN"}, ExitError, "--session-usd must be a positive number"},
		{[]string{"findings", "--high-usd", "+Inf"}, ExitError, "--high-usd must be a positive number"},
		{[]string{"report", "--result-avg", "-1"}, ExitError, "--result-avg must be a positive number, got -1"},
		{[]string{"measure", "--top", "0", "x.json"}, ExitError, "--top must be 1 or more, got 0"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		args := append(tt.args, "--db", db)
		if tt.args[0] == "measure" {
			args = tt.args
		}
		code := Main(args, strings.NewReader(""), &out, &errb)
		if code != tt.code || tt.err != "" && !strings.Contains(errb.String(), "mcpcost: error: "+tt.err) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d with %q", tt.args, code, errb.String(), tt.code, tt.err)
		}
	}
}
