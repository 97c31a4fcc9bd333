package cli

import "testing"

func TestNearest(t *testing.T) {
	cmds := []string{"audit", "badge", "clients", "diff", "findings", "help", "measure", "prices", "report", "serve", "usage", "verify", "version"}
	tests := []struct{ word, want string }{
		{"audti", "audit"},     // a transposition is one edit
		{"adit", "audit"},      // a deletion
		{"mesure", "measure"},  // a deletion in a longer word
		{"measrue", "measure"}, // a transposition
		{"findigns", "findings"},
		{"vresion", "version"},
		{"dif", "diff"},     // a word of four letters or fewer: one edit
		{"dx", ""},          // two edits from diff: too far for a short word
		{"xyzzy", ""},       // far from everything
		{"servr", "serve"},  // serve (1) before server-like guesses
		{"verfy", "verify"}, // one deletion
		{"", ""},
	}
	for _, tt := range tests {
		if got := nearest(tt.word, cmds); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	// Ties go to the first in sorted order, whatever the candidates' order.
	if got := nearest("bat", []string{"cat", "bar"}); got != "bar" {
		t.Errorf("nearest(bat) = %q, want bar", got)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"abc", "abc", 0},
		{"ab", "ba", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
		{"é", "e", 1}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
