package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func init() {
	register(&Command{
		Name:  "report",
		Short: "per config: what is paid before typing, what was used, findings",
		Usage: `usage: mcpcost report [--json | --markdown | --html FILE]
                      [--days N | --since DATE --until DATE] [--project P]
                      [--store URL] [--machine NAME] [--user NAME]
                      [thresholds...]

One view of the MCP servers of this project's configs (and the user's):

  per config   what is paid before anything is typed (under the client's
               posture) and what its sessions used: per server, calls,
               result tokens, and the tokens its definitions carried over
               the requests of those sessions, with their estimated cost
  per server   every MCP server called in the window, configured or not
  findings     as 'mcpcost findings' computes them, in short

Transcripts are ingested first, as 'mcpcost usage' does; servers are
measured from the measurement cache (launching nothing unless --launch).

Output:
  --json                 the report as JSON (schema mcpcost.report/v1)
  --markdown             the report as Markdown
  --html FILE            write the report as one self-contained HTML file:
                         a treemap of the definitions (config, server, tool,
                         part; click to zoom), the findings by kind under a
                         summary table, charts per day with their tables,
                         sortable tables of servers, sessions and projects
                         (inline CSS and SVG, one small inline script that
                         sorts tables and shows a box's figures on a tap,
                         nothing loaded); - for standard output; FILE's
                         folder must exist

` + runtimeFlagsUsage + `

Exit status: 0 done, 2 usage or runtime error.`,
		Run: runReport,
	})
}

func runReport(env *Env, args []string) int {
	f := newFlags("report")
	asJSON := f.Bool("json", "")
	asMarkdown := f.Bool("markdown", "")
	htmlFile := f.String("html", "", "")
	rf := addRuntimeFlags(f)
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos)+len(rest) > 0 {
		return usageError(env, "report", "report takes no arguments (got %q)", append(pos, rest...)[0])
	}
	n := 0
	for _, set := range []bool{*asJSON, *asMarkdown, *htmlFile != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usageError(env, "report", "--json, --markdown and --html exclude each other")
	}
	if f.Set("html") && *htmlFile == "" {
		return usageError(env, "report", "--html takes a file name, or - for standard output")
	}
	if *htmlFile != "" && *htmlFile != "-" {
		if err := outputFolder("--html", *htmlFile); err != nil {
			return fail(env, err)
		}
	}
	in, code, ok := compute(env, "report", f, rf)
	if !ok {
		return code
	}
	rep, ov := in.Report, in.Overview()
	if ov.TokensCapped {
		warnf(env, "%s", strings.TrimPrefix(usage.CappedNote, "warning: "))
	}
	var err error
	switch {
	case *asJSON:
		err = render.JSON(env.Stdout, ov)
	case *asMarkdown:
		err = render.ReportMarkdown(env.Stdout, ov)
	case *htmlFile == "-":
		err = render.ReportHTML(env.Stdout, ov)
	case *htmlFile != "":
		var buf bytes.Buffer
		if err = render.ReportHTML(&buf, ov); err == nil {
			err = writeNamed(env, *htmlFile, buf.Bytes(), fmt.Sprintf("%s: %d high, %d warn, %d info", num.Count(len(ov.Findings), "finding"), ov.Counts.High, ov.Counts.Warn, ov.Counts.Info))
		}
	default:
		err = render.ReportText(env.Stdout, ov, env.Screen())
	}
	if err != nil {
		return fail(env, err)
	}
	if in.Ingest != nil && in.Ingest.Files == 0 && rep.Window.Requests == 0 {
		noTranscriptsHint(env, "report", rf.folders())
	}
	return ExitOK
}

// outputFolder refuses an output file whose folder does not exist, before
// any work is done: a folder is never created for a file named on the
// command line.
func outputFolder(flag, path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return withHint(fmt.Errorf("%s %s: the folder %s does not exist", flag, path, dir), "create it first (mkdir -p "+dir+"), or name a file in a folder that exists")
	case !fi.IsDir():
		return withHint(fmt.Errorf("%s %s: %s is not a folder", flag, path, dir), "name a file in a folder that exists")
	}
	return nil
}
