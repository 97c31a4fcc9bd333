package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func init() {
	register(&Command{
		Name:  "findings",
		Short: "what to change: idle servers, large results, repeats, slow tools",
		Usage: `usage: mcpcost findings [--days N | --since DATE --until DATE] [--project P]
                        [--verbose | --json | --markdown] [--fail-on LEVEL]
                        [--store URL] [--machine NAME] [--user NAME]
                        [thresholds...]
       mcpcost findings show ID [flags]

Reads what is new in the agents' transcripts into the usage store (as
'mcpcost usage' does: Claude Code, Codex, Gemini CLI, opencode, GitHub
Copilot CLI and Goose), audits the MCP configs that apply from the
measurement cache (launching nothing unless --launch), and joins the two
into ranked findings:

  idle-server         a configured server whose definitions rode on N
                      requests and which was called rarely or never
  oversized-results   tool results averaging over a threshold, or over
                      Claude Code's warning (10,000) or MAX_MCP_OUTPUT_TOKENS
  repeated-calls      the same tool with identical arguments in the same
                      session within a window (exact: a keyed hash)
  slow-tool           median latency over a threshold (the figure includes
                      any wait for your permission: transcripts do not mark it)
  expensive-session   sessions over a cost, with what drove the cost
  cache-inefficiency  cache writes well above reads, per project and day
  heavy-definition    tool definitions over a threshold, descriptions
                      Claude Code cuts at 2,048 characters

Each finding has a stable id (a hash of its type and subject, never of the
numbers), the evidence, a confidence with its rule, a recommendation and an
estimated saving that states its assumption. Findings are sorted by level
(high, warn, info), then by estimated saving. The text lists one line per
finding (level, id, title, estimated saving); 'findings show ID' prints one
finding whole (its evidence, the rules of its level and confidence, the
recommendation and the saving's assumption), --verbose every finding so.

Output:
  --verbose              every finding whole, not one line each
  --json                 the findings as JSON (schema mcpcost.findings/v1)
  --markdown             the findings as Markdown
  --fail-on LEVEL        exit 1 when a finding is at LEVEL or above
                         (info, warn or high)

` + runtimeFlagsUsage + `

Exit status: 0 done (and no finding at --fail-on's level), 1 a finding at
or above --fail-on's level, 2 usage or runtime error.`,
		Run: runFindings,
	})
}

func runFindings(env *Env, args []string) int {
	f := newFlags("findings")
	verbose := f.Bool("verbose", "")
	asJSON := f.Bool("json", "")
	asMarkdown := f.Bool("markdown", "")
	failOn := f.String("fail-on", "", "")
	rf := addRuntimeFlags(f)
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	var show string
	if len(pos) > 0 && pos[0] == "show" {
		if len(pos) != 2 || len(rest) > 0 {
			return usageError(env, "findings", "findings show takes one finding id")
		}
		show, pos = pos[1], nil
		if *asMarkdown || *verbose {
			return usageError(env, "findings", "findings show prints one finding whole, as text or --json")
		}
	}
	if len(pos)+len(rest) > 0 {
		return usageError(env, "findings", "findings takes no arguments (got %q)", append(pos, rest...)[0])
	}
	if *asJSON && *asMarkdown {
		return usageError(env, "findings", "--json and --markdown exclude each other")
	}
	if *failOn != "" && findings.LevelRank(*failOn) == 0 {
		return badValue(env, "findings", "--fail-on ", *failOn, findings.Levels, fmt.Sprintf("--fail-on must be one of %s, not %q", strings.Join(findings.Levels, ", "), *failOn))
	}
	in, code, ok := compute(env, "findings", f, rf)
	if !ok {
		return code
	}
	rep := in.Report
	var err error
	if show != "" {
		i := slices.IndexFunc(rep.Findings, func(f findings.Finding) bool { return f.ID == show })
		if i < 0 {
			errorf(env, "no finding %q in this window", show)
			hintf(env, "run 'mcpcost findings' for the ids of this window's findings")
			return ExitError
		}
		switch {
		case *asJSON:
			err = render.JSON(env.Stdout, rep.Findings[i])
		default:
			err = render.FindingText(env.Stdout, rep.Findings[i], env.Screen())
		}
		if err != nil {
			return fail(env, err)
		}
		return ExitOK
	}
	if rep.TokensCapped {
		warnf(env, "%s", strings.TrimPrefix(usage.CappedNote, "warning: "))
	}
	switch {
	case *asJSON:
		err = render.JSON(env.Stdout, rep)
	case *asMarkdown:
		err = render.FindingsMarkdown(env.Stdout, rep)
	default:
		err = render.FindingsText(env.Stdout, rep, env.Screen(), *verbose)
	}
	if err != nil {
		return fail(env, err)
	}
	if in.Ingest != nil && in.Ingest.Files == 0 && rep.Window.Requests == 0 {
		noTranscriptsHint(env, "findings", rf.folders())
	}
	if *failOn != "" {
		if n := rep.AtOrAbove(*failOn); n > 0 {
			checkFailed(env, "findings --fail-on "+*failOn, "%s at %s or above", num.Count(n, "finding"), *failOn)
			hintf(env, "%s", failOnHint(*failOn))
			return ExitFail
		}
	}
	return ExitOK
}

// failOnHint is what to do when --fail-on LEVEL failed: read the
// findings, and gate on a higher level where there is one.
func failOnHint(level string) string {
	h := "see the findings listed; 'mcpcost findings show ID' explains one and what to do"
	switch level {
	case findings.LevelInfo:
		h += ", and --fail-on warn or high gates on fewer"
	case findings.LevelWarn:
		h += ", and --fail-on high gates on high findings alone"
	}
	return h
}
