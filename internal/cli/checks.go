package cli

import (
	"fmt"
	"strings"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/diff"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/outfile"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// checkFailed prints "mcpcost: check failed: WHAT (CHECK)" on stderr for
// a gate or check that failed, CHECK naming the command and the flag that
// asked for it ("measure --budget"). The report on stdout says the same at
// length; this line is what a log shows when stdout goes to a file
// (--json > out.json). A failed check is not an error: no hint is owed.
func checkFailed(env *Env, check, format string, a ...any) {
	diagnostic(env, "check failed", "%s (%s)", []any{fmt.Sprintf(format, a...), check})
}

// increaseFailed says what failed an increase gate (--max-increase), if
// it failed: its one reason, or the codes of its reasons.
func increaseFailed(env *Env, check string, g *diff.Gate) {
	if g == nil || g.Pass {
		return
	}
	head := fmt.Sprintf("the increase gate (%s per request) failed", num.Count(g.MaxIncrease, "token"))
	switch len(g.Reasons) {
	case 0:
		checkFailed(env, check, "%s", head)
	case 1:
		checkFailed(env, check, "%s: %s", head, g.Reasons[0].String())
	default:
		var codes []string
		seen := map[string]bool{}
		for _, r := range g.Reasons {
			if !seen[r.Code] {
				seen[r.Code] = true
				codes = append(codes, r.Code)
			}
		}
		checkFailed(env, check, "%s for %d reasons: %s", head, len(g.Reasons), strings.Join(codes, ", "))
	}
}

// measureBudgetFailed says what failed measure --budget, if it failed.
func measureBudgetFailed(env *Env, rep *measure.Report) {
	if b := rep.Budget; b != nil && !b.Pass {
		checkFailed(env, "measure --budget", "%s: %s, over the budget of %s by %s",
			rep.Server, num.Count(rep.TotalTokens, "token"), num.Int(b.Limit), num.Int(rep.TotalTokens-b.Limit))
	}
}

// auditChecksFailed says what failed each of an audit's own checks: the
// budget, the threshold, and every server measured (a partial report
// fails unless allowed).
func auditChecksFailed(env *Env, rep *audit.Report, partialFails bool) {
	if g := rep.Budget; g != nil && !g.Pass {
		var failed []audit.BudgetConfig
		for _, c := range g.Configs {
			if !c.Pass {
				failed = append(failed, c)
			}
		}
		of := "session"
		if g.Of != "sessions" {
			of = "config"
		}
		switch {
		case len(failed) == 1:
			checkFailed(env, "audit --budget", "%s: %s", budgetName(g, failed[0]), fewReasons(failed[0].Reasons))
		case len(failed) > 1:
			names := make([]string, len(failed))
			for i, c := range failed {
				names[i] = budgetName(g, c)
			}
			checkFailed(env, "audit --budget", "%d %s fail the budget of %s: %s", len(failed), num.Plural(len(failed), of, of+"s"),
				num.Count(g.Limit, "token"), fewOf(names))
		}
	}
	if g := rep.Threshold; g != nil && !g.Pass {
		tools := make([]string, 0, 3)
		for _, t := range g.Tools[:min(3, len(g.Tools))] {
			tools = append(tools, fmt.Sprintf("%s · %s (%s)", textsafe.Cut(t.Server, textsafe.MaxName), textsafe.Cut(t.Tool, textsafe.MaxName), num.Int(t.Tokens)))
		}
		if more := len(g.Tools) - len(tools); more > 0 {
			tools = append(tools, num.Int(more)+" more")
		}
		checkFailed(env, "audit --threshold", "%s over %s: %s", num.Count(len(g.Tools), "tool"), num.Count(g.Limit, "token"), num.JoinAnd(tools))
	}
	if rep.Partial && partialFails {
		var names []string
		units := rep.Configs
		if len(rep.Sessions) > 0 {
			units = nil
			for _, s := range rep.Sessions {
				units = append(units, s.Config)
			}
		}
		seen := map[string]bool{}
		for _, c := range units {
			for _, n := range c.Unmeasured {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		checkFailed(env, "audit", "%s could not be measured (%s): the report is partial",
			num.Count(len(names), "server"), fewOf(names))
	}
}

// fewOf lists the first textsafe.MaxListed of names as a sentence does,
// each cut to textsafe.MaxName runes, and counts the rest: "a, b and c",
// "a, b, ..., j and 1,990 more". A line of stderr that names what a config
// may hold thousands of stays a line.
func fewOf(names []string) string {
	shown := make([]string, 0, min(len(names), textsafe.MaxListed)+1)
	for _, n := range names[:min(len(names), textsafe.MaxListed)] {
		shown = append(shown, textsafe.Cut(n, textsafe.MaxName))
	}
	if more := len(names) - len(shown); more > 0 {
		shown = append(shown, num.Int(more)+" more")
	}
	return num.JoinAnd(shown)
}

// fewReasons joins the first textsafe.MaxListed of reasons with "; ",
// each cut to textsafe.MaxProse runes, and counts the rest ("; and 1,990
// more reasons"), as [fewOf] lists names.
func fewReasons(reasons []string) string {
	shown := make([]string, 0, min(len(reasons), textsafe.MaxListed))
	for _, r := range reasons[:min(len(reasons), textsafe.MaxListed)] {
		shown = append(shown, textsafe.Cut(r, textsafe.MaxProse))
	}
	out := strings.Join(shown, "; ")
	if more := len(reasons) - len(shown); more > 0 {
		out += "; and " + num.Count(more, "more reason")
	}
	return out
}

// budgetName names a config or session a budget judged: its path, or its
// client's session.
func budgetName(g *audit.BudgetGate, c audit.BudgetConfig) string {
	if g.Of == "sessions" {
		return clients.Title(c.Client) + " session in " + c.Path
	}
	return c.Path
}

// writeOut writes data to path as writeNamed does, or to stdout for "-"
// (and says nothing): what says what it is. An output file flag that
// takes - (badge --svg, measure --out) writes with it.
func writeOut(env *Env, path string, data []byte, what string) error {
	if path == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	return writeNamed(env, path, data, what)
}

// writeNamed writes data whole (outfile.Write) to path, a file named by a
// flag, and says so on stderr, "mcpcost: wrote PATH (WHAT)": a status
// line, so that stdout holds only the report. A command writing to stdout
// ("-") writes there itself, and says nothing.
func writeNamed(env *Env, path string, data []byte, what string) error {
	if err := outfile.Write(path, data, outfile.Shared); err != nil {
		return err
	}
	env.endProgress()
	fmt.Fprintf(env.Stderr, "mcpcost: wrote %s (%s)\n", textsafe.Text(path), textsafe.Text(what))
	return nil
}
