package cli

import (
	"bytes"
	"fmt"
	"testing"
)

func TestDiagnosticsEscape(t *testing.T) {
	var stderr bytes.Buffer
	env := &Env{Stderr: &stderr}
	errorf(env, "%s: startup-failure: %s", "evil\x1b[2J", "boom\rmcpcost: all servers OK\n\u202e")
	warnf(env, "skipped: %s", "t\x1b]0;x\x07")
	hintf(env, "%s", "\x9b31m")
	want := "mcpcost: error: evil\\x1b[2J: startup-failure: boom\\rmcpcost: all servers OK\\n\\u202e\n" +
		"mcpcost: warning: skipped: t\\x1b]0;x\\x07\n" +
		"mcpcost: hint: \\x9b31m\n"
	if stderr.String() != want {
		t.Errorf("got\n%q\nwant\n%q", stderr.String(), want)
	}
}

func TestProgressEscapes(t *testing.T) {
	var stderr bytes.Buffer
	env := &Env{Stderr: &stderr, StderrTTY: true}
	p := env.Progress()
	fmt.Fprintf(p, "\ringesting transcripts: %d/%d files", 1, 2)
	fmt.Fprintf(p, "[%d/%d] %s: %s\n", 1, 1, "evil\x1b]0;x\x07\rmcpcost: all servers OK", "measured")
	want := "\ringesting transcripts: 1/2 files" + `[1/1] evil\x1b]0;x\x07\rmcpcost: all servers OK: measured` + "\n"
	if stderr.String() != want {
		t.Errorf("got\n%q\nwant\n%q", stderr.String(), want)
	}
	var none bytes.Buffer
	fmt.Fprint((&Env{Stderr: &none}).Progress(), "x")
	if none.Len() > 0 {
		t.Errorf("progress on a stderr that is not a terminal: %q", none.String())
	}
}
