package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

func TestProjectMatch(t *testing.T) {
	long := "/home/u/" + strings.Repeat("d/", transcript.MaxName) + "app"
	tests := []struct {
		filter, project string
		want            bool
	}{
		{"", "/home/u/app", true},
		{"/home/u/app", "/home/u/app", true},
		{"app", "/home/u/app", true},
		{"u/app", "/home/u/app", true},
		{"app/", "/home/u/app", true},
		{"pp", "/home/u/app", false},
		{"app", `C:\work\app`, true},
		{"app", "/home/u/app2", false},
		// A folder over transcript.MaxName is stored shortened: named
		// in full, it is the project still.
		{long, transcript.BoundName(long), true},
		{long + "/", transcript.BoundName(long), true},
		{long + "x", transcript.BoundName(long), false},
	}
	for _, tt := range tests {
		if got := ProjectMatch(tt.filter, tt.project); got != tt.want {
			t.Errorf("ProjectMatch(%.80q, %.80q) = %v, want %v", tt.filter, tt.project, got, tt.want)
		}
	}
}

func TestFilterWhere(t *testing.T) {
	since, until := time.UnixMilli(1000), time.UnixMilli(2000)
	tests := []struct {
		f     Filter
		where string
		args  int
	}{
		{Filter{}, "", 0},
		{Filter{Source: "all"}, "", 0},
		{Filter{Source: "codex"}, " WHERE source = ?", 1},
		{Filter{Since: since, Until: until, Source: "claude"}, " WHERE ts >= ? AND ts < ? AND source = ?", 3},
	}
	for _, tt := range tests {
		where, args := tt.f.where("ts")
		if where != tt.where || len(args) != tt.args {
			t.Errorf("%+v: %q %v, want %q with %d arguments", tt.f, where, args, tt.where, tt.args)
		}
	}
}

// The queries answer from an ingested store: every request and tool call
// once, a project filter that matches nothing empties both, and a session
// is found by its id and by a prefix, with LIKE's wildcards taken
// literally.
func TestQueries(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(root, "usage.db"))
	ingest(t, s, home)
	ctx := context.Background()
	count := func(f Filter) (reqs, calls int) {
		t.Helper()
		for _, err := range s.Requests(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			reqs++
		}
		for _, err := range s.ToolCalls(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			calls++
		}
		return reqs, calls
	}
	var want int
	if err := s.db.QueryRow(`SELECT count(*) FROM requests`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	reqs, calls := count(Filter{Order: ByIdentity})
	if reqs != want || reqs == 0 || calls == 0 {
		t.Errorf("%d requests (want %d), %d tool calls", reqs, want, calls)
	}
	if r, c := count(Filter{Project: "no-such-project"}); r != 0 || c != 0 {
		t.Errorf("no-such-project: %d requests, %d tool calls", r, c)
	}
	last, ok, err := s.LastSession(ctx)
	if err != nil || !ok {
		t.Fatalf("last session: %v %v", ok, err)
	}
	for _, id := range []string{last.ID, last.ID[:4]} {
		hits, err := s.SessionsByID(ctx, last.Source, id, 3)
		if err != nil || len(hits) == 0 || (id == last.ID && hits[0].ID != last.ID) {
			t.Errorf("SessionsByID(%q) = %v, %v", id, hits, err)
		}
	}
	if hits, err := s.SessionsByID(ctx, "", "%", 3); err != nil || len(hits) != 0 {
		t.Errorf("SessionsByID(%%) = %v, %v", hits, err)
	}
	tools, err := s.SessionTools(ctx, last.Source, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(tools); i++ {
		if tools[i].ResultTokens > tools[i-1].ResultTokens {
			t.Errorf("tools not by result tokens: %+v", tools)
		}
	}
}

// A compaction is one event however many files hold its session: a
// project folder copied beside the original (a session in two files)
// doubles neither the compactions' count nor any session's.
func TestCompactionsOnceAcrossFiles(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	m, err := transcripttest.Generate(home, transcripttest.Small())
	if err != nil {
		t.Fatal(err)
	}
	if m.Compactions == 0 {
		t.Fatal("the generated tree has no compactions")
	}
	ctx := context.Background()
	counts := func(s *Store) map[string]int {
		t.Helper()
		got, err := s.Compactions(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, c := range got {
			out[c.Source+" "+c.Session] += c.N
		}
		return out
	}
	one := open(t, filepath.Join(root, "one.db"))
	ingest(t, one, home)
	want := counts(one)
	total := 0
	for _, n := range want {
		total += n
	}
	if total != m.Compactions {
		t.Fatalf("%d compactions, want the tree's %d", total, m.Compactions)
	}
	projects := filepath.Join(home, ".claude", "projects")
	dirs, err := os.ReadDir(projects)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.CopyFS(filepath.Join(projects, d.Name()+"-copy"), os.DirFS(filepath.Join(projects, d.Name()))); err != nil {
			t.Fatal(err)
		}
	}
	two := open(t, filepath.Join(root, "two.db"))
	ingest(t, two, home)
	var rows int
	if err := two.db.QueryRow(`SELECT count(*) FROM compactions`).Scan(&rows); err != nil || rows != 2*m.Compactions {
		t.Fatalf("%d compaction rows (%v), want each of %d in both copies", rows, err, m.Compactions)
	}
	if got := counts(two); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("with every session in two files: %v, want %v", got, want)
	}
}
