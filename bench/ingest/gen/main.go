// Command gen writes the ingestion benchmark's transcript tree: Claude Code
// sessions shaped like the data set of the performance notes (about 300
// sessions and 500 MB over 20 projects and 89 days, lognormal session
// sizes, most bytes in tool results), deterministic for a seed.
//
//	go run ./bench/ingest/gen -out DIR [-sessions 300] [-mb 500] [-seed 42]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

func main() {
	out := flag.String("out", "", "folder to write the tree into (its .claude and .codex)")
	sessions := flag.Int("sessions", 300, "Claude Code sessions")
	codex := flag.Int("codex", 0, "Codex sessions")
	mb := flag.Int("mb", 500, "about this many megabytes of transcripts")
	seed := flag.Uint64("seed", 42, "seed")
	quirks := flag.Bool("quirks", false, "add the shapes readers get wrong (gateways, resumed sessions, older sub-agent files, Codex 0.47 to 0.128)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	start := time.Now()
	m, err := transcripttest.Generate(*out, transcripttest.Options{
		Seed:        *seed,
		Sessions:    *sessions,
		Codex:       *codex,
		Projects:    20,
		Days:        89,
		Start:       time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC),
		TotalBytes:  int64(*mb) << 20,
		ResultBytes: 6000,
		Quirks:      *quirks,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %.1f MB, %d requests, %d tool calls, in %.1fs\n",
		m.Files, float64(m.Bytes)/1e6, len(m.Requests), len(m.Calls), time.Since(start).Seconds())
}
