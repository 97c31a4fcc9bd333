package app

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/usage"
)

func machineFor(vars map[string]string, prefix string) *Machine {
	return &Machine{Getenv: func(k string) string { return vars[k] }, FlagPrefix: prefix,
		Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }}
}

func TestStorePath(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the data folder of Linux")
	}
	for _, c := range []struct {
		vars map[string]string
		db   string
		want string
	}{
		{map[string]string{"HOME": "/h"}, "", "/h/.local/share/mcpcost/usage.db"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/d"}, "", "/d/mcpcost/usage.db"},
		{map[string]string{"HOME": "/h"}, "/x/u.db", "/x/u.db"},
	} {
		m := machineFor(c.vars, "--")
		m.DBPath = c.db
		if got, err := m.StorePath(); err != nil || got != c.want {
			t.Errorf("%v %q: %q, %v; want %q", c.vars, c.db, got, err, c.want)
		}
	}
}

func TestTranscriptRoots(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".claude/projects", ".codex/sessions", "cfg/projects"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	claude, codex := machineFor(map[string]string{"HOME": home}, "--").TranscriptRoots()
	if want := []string{filepath.Join(home, ".config", "claude"), filepath.Join(home, ".claude", "projects")}; !reflect.DeepEqual(claude, want) {
		t.Errorf("claude roots %q, want %q", claude, want)
	}
	if want := []string{filepath.Join(home, ".codex", "sessions"), filepath.Join(home, ".codex", "archived_sessions")}; !reflect.DeepEqual(codex, want) {
		t.Errorf("codex roots %q, want %q", codex, want)
	}
	// CLAUDE_CONFIG_DIR is a comma-separated list; CODEX_HOME too.
	claude, codex = machineFor(map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": filepath.Join(home, "cfg") + ", /nowhere", "CODEX_HOME": "/c"}, "--").TranscriptRoots()
	if want := []string{filepath.Join(home, "cfg", "projects"), "/nowhere"}; !reflect.DeepEqual(claude, want) {
		t.Errorf("CLAUDE_CONFIG_DIR roots %q, want %q", claude, want)
	}
	if want := []string{"/c"}; !reflect.DeepEqual(codex, want) {
		t.Errorf("CODEX_HOME roots %q, want %q", codex, want)
	}
}

// TestOptionErrors: an option given wrong is an *OptionError spelled as
// the front end spells its options, before any store is opened.
func TestOptionErrors(t *testing.T) {
	vars := map[string]string{"HOME": t.TempDir()}
	for _, prefix := range []string{"--", ""} {
		m := machineFor(vars, prefix)
		m.DBPath = filepath.Join(t.TempDir(), "never.db")
		for _, o := range []UsageOptions{
			{By: "color", Source: "all"},
			{By: "server", Source: "cursor"},
			{By: "server", Source: "all", Mode: "guess"},
			{By: "server", Source: "all", SplitAgents: true},
			{By: "server", Source: "all", TZ: "Mars/Olympus"},
			{By: "server", Source: "all", Window: usage.WindowArgs{Days: -1}},
		} {
			_, _, err := m.Usage(t.Context(), o)
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Errorf("%+v: %v, want an option error", o, err)
			}
		}
		if _, err := m.Findings(t.Context(), FindingsOptions{Mode: "guess"}); !errors.As(err, new(*OptionError)) || !strings.Contains(err.Error(), prefix+"mode must be one of auto, calculate, display") {
			t.Errorf("findings with mode guess: %v, want an option error", err)
		}
		if _, err := os.Stat(m.DBPath); !os.IsNotExist(err) {
			t.Errorf("a store was created for options given wrong: %v", err)
		}
		_, _, err := m.Usage(t.Context(), UsageOptions{By: "server", Source: "all", Store: StoreOptions{NoIngest: true}})
		var ns *NoStoreError
		if !errors.As(err, &ns) || ns.Path != m.DBPath {
			t.Errorf("no store: %v", err)
		}
	}
	if _, _, err := machineFor(vars, "--").Usage(t.Context(), UsageOptions{By: "color", Source: "all"}); err == nil || err.Error()[:4] != "--by" {
		t.Errorf("the command line's spelling: %v", err)
	}
	if _, err := machineFor(vars, "").Clients(ClientsOptions{Clients: []string{"emacs"}}); err == nil {
		t.Error("an unknown client is no error")
	}
}

// The system's zone is named by the IANA zone /etc/localtime links to;
// TZ and --tz name theirs; a zone with no name is never called "Local" in
// a report (usage.ZoneName).
func TestLocation(t *testing.T) {
	dir := t.TempDir()
	paris := filepath.Join(dir, "localtime-paris")
	if err := os.Symlink("/usr/share/zoneinfo/Europe/Paris", paris); err != nil {
		t.Skip(err)
	}
	posix := filepath.Join(dir, "localtime-posix")
	os.Symlink("../usr/share/zoneinfo/posix/Asia/Tokyo", posix)
	plain := filepath.Join(dir, "localtime-file")
	os.WriteFile(plain, []byte("TZif"), 0o644)
	odd := filepath.Join(dir, "localtime-odd")
	os.Symlink("/somewhere/else", odd)
	defer func(old string) { localtime = old }(localtime)
	for _, c := range []struct {
		link, tz, env, want string
		err                 bool
	}{
		{link: paris, want: "Europe/Paris"},
		{link: paris, tz: "local", want: "Europe/Paris"},
		{link: posix, want: "Asia/Tokyo"},
		{link: paris, env: "America/New_York", want: "America/New_York"},
		{link: paris, env: ":America/New_York", want: "America/New_York"},
		{link: paris, env: "America/New_York", tz: "local", want: "America/New_York"},
		{link: paris, env: "America/New_York", tz: "Asia/Kolkata", want: "Asia/Kolkata"},
		{link: paris, tz: "utc", want: "UTC"},
		{link: paris, env: "CET-1CEST", want: "Local"}, // a POSIX rule: Go's reading of it
		{link: paris, tz: "Nowhere/City", err: true},   // a flag must name a zone
		{link: plain, want: "Local"},
		{link: odd, want: "Local"},
		{link: filepath.Join(dir, "missing"), want: "Local"},
	} {
		localtime = c.link
		m := machineFor(map[string]string{"TZ": c.env}, "--")
		loc, err := m.Location(c.tz)
		if c.err {
			if err == nil {
				t.Errorf("%s %q TZ=%q: no error", filepath.Base(c.link), c.tz, c.env)
			}
			continue
		}
		if err != nil || loc.String() != c.want {
			t.Errorf("%s %q TZ=%q: %v, %v; want %s", filepath.Base(c.link), c.tz, c.env, loc, err, c.want)
		}
	}
}
