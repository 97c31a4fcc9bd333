package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// TestPushMachineName: a machine name with a control character or bytes
// that are not UTF-8 is refused before anything is opened, as a usage
// error that shows the name escaped.
func TestPushMachineName(t *testing.T) {
	m := machineFor(map[string]string{}, "--")
	for _, c := range []struct{ name, shown string }{
		{"B\x1b[31m\r\nX", `"B\x1b[31m\r\nX"`},
		{"lap\ttop", `"lap\ttop"`},
		{"bell\a", `"bell\a"`},
		{"nul\x00", `"nul\x00"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u0085", `"c1\u0085"`},
		{"bidi\u202e", `"bidi\u202e"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{" padded", `" padded"`},
		{strings.Repeat("m", 256), ""},
	} {
		_, err := m.Push(context.Background(), PushOptions{URL: "postgres://u@127.0.0.1:1/db", Machine: c.name, NoIngest: true})
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("--machine %q: got %v, want a usage error", c.name, err)
			continue
		}
		msg := err.Error()
		if c.shown != "" && !strings.Contains(msg, c.shown) {
			t.Errorf("--machine %q: %q does not show %s", c.name, msg, c.shown)
		}
		if !utf8.ValidString(msg) {
			t.Errorf("--machine %q: the error %q is not UTF-8", c.name, msg)
		}
		for _, r := range msg {
			if textsafe.Unsafe(r) {
				t.Errorf("--machine %q: the error %q holds %U raw", c.name, msg, r)
				break
			}
		}
	}
}

// TestMachineNameFromEnv: MCPCOST_MACHINE (which serve reads too) is held
// to the same rule as --machine.
func TestMachineNameFromEnv(t *testing.T) {
	m := machineFor(map[string]string{"MCPCOST_MACHINE": "B\x1b[31m\r\nX"}, "--")
	_, err := m.machineName()
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), `"B\x1b[31m\r\nX"`) {
		t.Errorf("MCPCOST_MACHINE with control characters: got %v, want a usage error showing the name escaped", err)
	}
	if name, err := machineFor(map[string]string{"MCPCOST_MACHINE": "laptop-7"}, "--").machineName(); err != nil || name != "laptop-7" {
		t.Errorf("MCPCOST_MACHINE=laptop-7: got %q, %v", name, err)
	}
}
