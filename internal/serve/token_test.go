package serve

import (
	"strings"
	"testing"
)

// TestCheckToken: a chosen token is at least MinTokenLength characters of
// printable ASCII without spaces, and an error never quotes it.
func TestCheckToken(t *testing.T) {
	for _, c := range []struct{ token, want string }{
		{"canary-0123456789", ""},
		{strings.Repeat("~", MinTokenLength), ""},
		{"!" + strings.Repeat("a", MinTokenLength-1), ""},
		{"", "shorter than 16 characters"},
		{"canary-01234567", "shorter than 16 characters"},
		{"canary 0123456789", "a space (at byte 7)"},
		{"canary-0123456789\n", "a control character (at its end)"},
		{"canary-0123456789\r", "a control character (at its end)"},
		{"\tcanary-0123456789", "a control character (at its start)"},
		{"canary-01234\x7f56789", "a control character (at byte 13)"},
		{"canary-01234\x0056789", "a control character (at byte 13)"},
		{"canary-tökén-0123456789", "a character outside ASCII (at byte 9)"},
		{"canary-0123456789\xff", "a character outside ASCII (at its end)"},
	} {
		err := CheckToken(c.token)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.token, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.token, err, c.want)
		case err != nil && strings.Contains(err.Error(), "canary"):
			t.Errorf("%q: the error quotes the token: %v", c.token, err)
		}
	}
}
