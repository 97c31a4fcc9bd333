package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/render"
)

// TestDiagnosticsFitTheTerminal: on a terminal, an error, hint or warning
// longer than the terminal is wide is broken at spaces into lines that
// fit, each one starting "mcpcost: KIND:"; into a pipe or file it stays
// one line, whole.
func TestDiagnosticsFitTheTerminal(t *testing.T) {
	msg := "8 servers of the project's own config files were not launched: alpha, beta, gamma, delta, epsilon, zeta, eta and theta; approve them in Claude Code or run mcpcost with --trust-project"
	for _, cols := range []int{40, 80, 100} {
		var errb bytes.Buffer
		env := &Env{Stderr: &errb, StderrTTY: true, ErrColumns: cols}
		hintf(env, "%s", msg)
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		if len(lines) < 2 {
			t.Errorf("%d columns: %q, want it broken", cols, errb.String())
		}
		var words []string
		for _, l := range lines {
			if render.Width(l) > cols {
				t.Errorf("%d columns: a line of %d: %q", cols, render.Width(l), l)
			}
			rest, ok := strings.CutPrefix(l, "mcpcost: hint: ")
			if !ok {
				t.Errorf("%d columns: %q does not start mcpcost: hint:", cols, l)
			}
			words = append(words, strings.Fields(rest)...)
		}
		if strings.Join(words, " ") != msg {
			t.Errorf("%d columns: words %q", cols, strings.Join(words, " "))
		}
	}
	var errb bytes.Buffer
	env := &Env{Stderr: &errb, StderrTTY: false, ErrColumns: 0}
	errorf(env, "%s", msg)
	if errb.String() != "mcpcost: error: "+msg+"\n" {
		t.Errorf("into a pipe: %q", errb.String())
	}
	// A word longer than the line is a line of its own, not cut.
	errb.Reset()
	env = &Env{Stderr: &errb, StderrTTY: true, ErrColumns: 40}
	long := strings.Repeat("x", 60)
	warnf(env, "see %s now", long)
	if !strings.Contains(errb.String(), "mcpcost: warning: "+long+"\n") {
		t.Errorf("a long word: %q", errb.String())
	}
}
