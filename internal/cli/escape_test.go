package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/render"
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

// Progress names servers: escaped, on one line redrawn in place on a
// terminal, as plain lines elsewhere, nowhere with --quiet.
func TestProgressEscapes(t *testing.T) {
	evil := "evil\x1b]0;x\x07\rmcpcost: all servers OK"
	events := []app.ProgressEvent{
		{Work: app.WorkMeasure, Phase: app.PhaseStart, Total: 2},
		{Work: app.WorkMeasure, Phase: app.PhaseStep, Done: 1, Total: 2, Name: evil, Status: "measured", Elapsed: 1500 * time.Millisecond},
		{Work: app.WorkMeasure, Phase: app.PhaseStep, Done: 2, Total: 2, Name: "b", Status: "startup-failure"},
		{Work: app.WorkIngest, Phase: app.PhaseStart, Total: 1234},
		{Work: app.WorkIngest, Phase: app.PhaseStep, Done: 617, Total: 1234, Bytes: 2_000_000},
		{Work: app.WorkIngest, Phase: app.PhaseEnd, Done: 1234, Total: 1234, Bytes: 4_000_000},
	}
	const clear = "\r\x1b[K"
	// A line redrawn in place, cut to the terminal's width less a column.
	tty := func(l string) string { return clear + render.Truncate("mcpcost: "+l, 59) }
	escaped := `[1/2] evil\x1b]0;x\x07\rmcpcost: all servers OK: measured (1.5s)`
	for _, c := range []struct {
		name string
		env  *Env
		want string
	}{
		{"terminal", &Env{StderrTTY: true, ErrColumns: 60}, tty("measuring 2 servers…") + tty(escaped) + tty("[2/2] b: startup-failure (0.0s)") + clear +
			tty("reading 1,234 transcript files…") + tty("reading transcripts: 617/1,234 files, 2.0 MB") +
			tty("read 1,234 transcript files, 4.0 MB") + clear},
		{"pipe", &Env{}, "mcpcost: measuring 2 servers…\nmcpcost: " + escaped + "\nmcpcost: [2/2] b: startup-failure (0.0s)\n" +
			"mcpcost: reading 1,234 transcript files…\nmcpcost: read 1,234 transcript files, 4.0 MB\n"},
		{"quiet", &Env{StderrTTY: true, Quiet: true}, ""},
	} {
		var stderr bytes.Buffer
		c.env.Stderr = &stderr
		if p := c.env.Progress(); p != nil {
			for _, e := range events {
				p(e)
			}
		}
		if stderr.String() != c.want {
			t.Errorf("%s: got\n%q\nwant\n%q", c.name, stderr.String(), c.want)
		}
	}
}
