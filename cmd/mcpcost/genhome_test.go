package main

import (
	"strconv"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGenhome: genhome DIR [SESSIONS] writes a generated home's Claude Code
// and Codex transcripts (DIR/.claude, DIR/.codex): the same tree for the
// same arguments.
func cmdGenhome(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: genhome DIR [SESSIONS]")
	}
	sessions := 12
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		sessions = n
	}
	_, err := transcripttest.Generate(ts.MkAbs(args[0]), transcripttest.Options{
		Seed: 7, Sessions: sessions, Codex: 2, Projects: 4, Days: 6,
		Start:      time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		TotalBytes: int64(sessions) * 40_000, ResultBytes: 3000,
	})
	ts.Check(err)
}
