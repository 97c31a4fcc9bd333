package transcript_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestGooseGolden exports a sessions.db built from testdata/goose.sql (rows
// shaped as Goose 1.35 writes them, and broken ones) and compares the
// records with testdata/goose.golden.json.
func TestGooseGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, transcript.GooseDB)
	script, err := os.ReadFile("testdata/goose.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := transcript.ExportGoose(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := transcript.NewParser(transcript.File{Path: path, Source: transcript.Goose}, nil)
	type out struct {
		Line   int                `json:"line"`
		Record *transcript.Record `json:"record,omitempty"`
		Texts  []string           `json:"texts,omitempty"`
		Args   []string           `json:"args,omitempty"`
		Error  string             `json:"error,omitempty"`
	}
	var got []out
	transcript.ScanLines(bytes.NewReader(data), 0, 1, func(l []byte, no int, _ int64, err error) error {
		rec, perr := p.ParseLine(l)
		switch {
		case perr != nil:
			got = append(got, out{Line: no, Error: perr.Error()})
		case rec != nil:
			o := out{Line: no, Record: rec}
			for _, r := range rec.Results {
				o.Texts = append(o.Texts, r.Texts...)
			}
			for _, c := range rec.Calls {
				o.Args = append(o.Args, string(c.Args))
			}
			got = append(got, o)
		}
		return nil
	})
	b, _ := json.MarshalIndent(got, "", "  ")
	b = append(b, '\n')
	golden := filepath.Join("testdata", "goose.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("records differ from %s (run with -update to see):\n%s", golden, b)
	}
}

// TestGooseExportRefuses: what is not a Goose database is an error that
// names no value of it.
func TestGooseExportRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"text": "sk-canary-31415 not sqlite", "empty": ""} {
		path := filepath.Join(dir, name+".db")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := transcript.ExportGoose(path); err == nil || strings.Contains(err.Error(), "canary") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := transcript.ExportGoose(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a missing database exports")
	}
}

func TestDiscoverGoose(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "sessions")
	for _, p := range []string{"sessions.db", "sessions.db-wal", "other.db", "old/sessions.db", "20250101_1.jsonl"} {
		path := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
	}
	link := filepath.Join(base, "linked")
	if err := os.Symlink(root, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	files, err := transcript.DiscoverGoose([]string{root, link, filepath.Join(base, "missing")})
	if err != nil || len(files) != 1 || files[0].Path != filepath.Join(root, "sessions.db") || files[0].Source != transcript.Goose {
		t.Errorf("%+v %v", files, err)
	}
}

func FuzzGooseLine(f *testing.F) {
	home := f.TempDir()
	m, err := transcripttest.GenerateGoose(home, 9, 12, 2, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		f.Fatal(err)
	}
	data, err := transcript.ExportGoose(m.DB)
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		f.Add(l)
	}
	for _, s := range boundaryInputs() {
		// Large and deep arguments and results, inside content_json.
		content, _ := json.Marshal(`[{"type":"toolRequest","id":"c1","toolCall":{"status":"success","value":{"name":"gh__x","arguments":` + string(s) +
			`}}},{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":{"content":` + string(s) + `}}}]`)
		f.Add([]byte(`{"kind":"message","row":1,"session_id":"s","content_json":` + string(content) + `,"created_timestamp":1793696400}`))
		f.Add([]byte(`{"kind":"session","row":1,"id":"s","model_config_json":` + mustJSON(string(s)) + `,"total_tokens":5,"created_at":"2026-11-01 10:00:00"}`))
	}
	f.Add([]byte(`{"kind":"session","row":1,"id":"s","model_config_json":"{\"model_name\":\"m\"}","total_tokens":"9007199254740993","created_at":1793696400}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &transcript.GooseParser{}
		rec, err := p.ParseLine(line)
		if err != nil && rec != nil {
			t.Fatal("a record and an error")
		}
		if rec != nil && rec.Request != nil {
			u := rec.Request.Usage
			if u.Input < 0 || u.Output < 0 || u.Reasoning < 0 || u.Output < u.Reasoning || u.Input > transcript.MaxTokens || u.Output > 2*transcript.MaxTokens {
				t.Fatalf("usage %+v", u)
			}
		}
	})
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
