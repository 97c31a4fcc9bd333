package cli

import (
	"errors"
	"strings"

	"github.com/mcpcost/mcpcost/internal/diff"
	"github.com/mcpcost/mcpcost/internal/render"
)

func init() {
	register(&Command{
		Name:  "diff",
		Short: "compare two reports per config, server, tool and part; gate it",
		Usage: diffUsage,
		Run:   runDiff,
	})
}

const diffUsage = `usage: mcpcost diff [flags] BASE CURRENT

Compare two reports: what CURRENT adds to (or takes from) every request,
against BASE. Each is the JSON of 'mcpcost audit --json' or 'mcpcost
measure --json', a measurement.json ('mcpcost measure --out'), or
mcp-context-cost's audit --json or measurement.json; the kind is sniffed.

Configs pair by path (and scope and client), or, with one config on each
side, with each other; servers by name, tools by name, parts by name. Each
is added, removed, changed or unchanged, with before → after, the delta and
the change in share of the context window. A report with server totals only
(mcp-context-cost's audit) is compared per server, and says so.

A comparison that cannot establish the increase says why, each reason
named: methodology-changed, encoding-changed, schema-changed,
kind-mismatch, config-missing (in BASE, not found now), config-new (no
baseline), unmeasured-now (measured in BASE and not now: its cost is
missing from the total, not gone from the config), added-unmeasured,
unmeasured-both, unmeasured-before (the delta is an upper bound).

Flags:
  --max-increase N   fail (exit 1) when a config got more than N tokens per
                     request heavier, and whenever the increase could not
                     be established (any reason above, or a file that is
                     not a report); every reason is listed
  --json             print the diff as JSON (schema mcpcost.diff/v1)
  --markdown         print the diff as a pull-request comment: a summary
                     line with the verdict, then collapsible detail

Without --max-increase the diff is information only: exit 0.
Exit status: 0 ok, 1 the gate failed, 2 bad input or usage.`

func runDiff(env *Env, args []string) int {
	f := newFlags("diff")
	jsonFlag := f.Bool("json", "")
	mdFlag := f.Bool("markdown", "")
	maxInc := f.Int("max-increase", 0, "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	pos = append(pos, rest...)
	switch {
	case len(pos) != 2:
		return usageError(env, "diff", "diff takes two reports, BASE and CURRENT, got %d", len(pos))
	case *jsonFlag && *mdFlag:
		return usageError(env, "diff", "give --json or --markdown, not both")
	case f.Set("max-increase") && *maxInc < 0:
		return usageError(env, "diff", "--max-increase must be zero or a positive number of tokens, got %d", *maxInc)
	case pos[0] == "-" && pos[1] == "-":
		return usageError(env, "diff", "only one of BASE and CURRENT can be standard input")
	}
	gated := f.Set("max-increase")
	docs := make([]*diff.Doc, 2)
	for i, p := range pos {
		doc, err := loadReport(env, p)
		if err != nil {
			var le *diff.LoadError
			if gated && errors.As(err, &le) {
				return diffGateFailed(env, "diff --max-increase", diff.LoadFailure(*maxInc, err), *jsonFlag, *mdFlag, hintOf(err))
			}
			return fail(env, err)
		}
		docs[i] = doc
	}
	d := diff.Compare(docs[0], docs[1])
	if gated {
		d.Check(*maxInc)
	}
	var err error
	switch {
	case *jsonFlag:
		err = jsonTo(env, d)
	case *mdFlag:
		err = render.DiffMarkdown(env.Stdout, d)
	default:
		err = render.DiffText(env.Stdout, d, env.Screen())
	}
	if err != nil {
		return fail(env, err)
	}
	if d.Gate != nil && !d.Gate.Pass {
		increaseFailed(env, "diff --max-increase", d.Gate)
		return ExitFail
	}
	return ExitOK
}

// gateOnly is the JSON of a gate that failed before anything could be
// compared.
type gateOnly struct {
	Schema string       `json:"schema"`
	Issues []diff.Issue `json:"issues"`
	Gate   *diff.Gate   `json:"gate"`
}

// diffGateFailed reports an increase gate that failed before anything
// could be compared: the gate in the command's output format, the failed
// check's line, and the hint. check names the command and flag.
func diffGateFailed(env *Env, check string, g *diff.Gate, jsonOut, mdOut bool, hint string) int {
	var err error
	switch {
	case jsonOut:
		err = jsonTo(env, gateOnly{Schema: diff.Schema, Issues: g.Reasons, Gate: g})
	case mdOut:
		err = render.GateFailureMarkdown(env.Stdout, g)
	default:
		var b strings.Builder
		scr := env.Screen()
		render.GateText(&b, g, scr)
		err = scr.Emit(env.Stdout, b.String())
	}
	if err != nil {
		return fail(env, err)
	}
	increaseFailed(env, check, g)
	if hint != "" {
		hintf(env, "%s", hint)
	}
	return ExitFail
}
