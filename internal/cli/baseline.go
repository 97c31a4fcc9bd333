package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/diff"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/status"
)

// baselineFlags are --baseline FILE and --max-increase N, shared by
// "measure" and "audit". A command registers them with addBaselineFlags,
// calls prepare right after parsing (before measuring anything: a bad
// baseline fails fast), and after building its report calls compare (or
// finishMeasure) to diff the report against the baseline and gate the
// increase.
//
// "audit" prints its report with writeAudit when a baseline is active.
type baselineFlags struct {
	f    *flags
	cmd  string // the command, named in a failed gate's line
	file *string
	max  *int
	base *diff.Doc
}

func addBaselineFlags(f *flags) *baselineFlags {
	return &baselineFlags{
		f:    f,
		file: f.String("baseline", "", ""),
		max:  f.Int("max-increase", 0, ""),
	}
}

// baselineUsage documents the flags in a command's manual.
const baselineUsage = `  --baseline FILE    compare with an earlier report: the JSON of
                     'mcpcost audit --json' or 'mcpcost measure --json', a
                     measurement.json, or mcp-context-cost's audit --json or
                     measurement.json; the diff is shown after the report
  --max-increase N   with --baseline, fail (exit 1) when a config got more
                     than N tokens per request heavier, and whenever the
                     increase could not be established (a server measured
                     in the baseline and not now, an added server that
                     cannot be measured, a config missing or new, another
                     methodology or schema): every reason is listed`

// active reports whether a baseline was given and read.
func (b *baselineFlags) active() bool { return b.base != nil }

// gated reports whether --max-increase was given.
func (b *baselineFlags) gated() bool { return b.f.Set("max-increase") }

// prepare checks the flags and reads the baseline. server says the command
// measures one server (measure) rather than configs (audit). It returns
// ok=false with the exit code when the command must stop: a usage error
// (2), an unreadable baseline (2), or a baseline that is not a comparable
// report: 1 when --max-increase was given (the gate fails, naming why), 2
// otherwise.
func (b *baselineFlags) prepare(env *Env, cmd string, server bool) (int, bool) {
	b.cmd = cmd
	given := b.f.Set("baseline")
	if b.gated() && !given {
		return usageError(env, cmd, "--max-increase needs a --baseline to measure the increase against"), false
	}
	if b.gated() && *b.max < 0 {
		return usageError(env, cmd, "--max-increase must be zero or a positive number of tokens, got %d", *b.max), false
	}
	if !given {
		return ExitOK, true
	}
	if *b.file == "" {
		return usageError(env, cmd, "--baseline needs a file name"), false
	}
	doc, err := loadReport(env, *b.file)
	if err == nil && doc.Kind.Server() != server {
		want := "an audit report (mcpcost audit --json, or mcp-context-cost's)"
		if server {
			want = "a server measurement (measurement.json or mcpcost measure --json)"
		}
		err = &diff.LoadError{File: *b.file, Msg: fmt.Sprintf("a %s; %s compares with %s", doc.Kind.Title(), cmd, want)}
		if b.gated() {
			return b.failGate(env, diff.IssueKindMismatch, err), false
		}
	}
	if err != nil {
		var le *diff.LoadError
		if b.gated() && errors.As(err, &le) {
			return b.failGate(env, diff.IssueNotAReport, err), false
		}
		return fail(env, err), false
	}
	if b.gated() {
		// A baseline that cannot be compared with this run fails the gate
		// before anything is launched.
		switch {
		case doc.SchemaUnknown:
			return b.failGate(env, diff.IssueSchemaChanged, fmt.Errorf("%s has schema %s, which this mcpcost does not read: re-record the baseline with this version", *b.file, doc.Schema)), false
		case doc.MethodologyVersion != measure.MethodologyVersion:
			return b.failGate(env, diff.IssueMethodologyChanged, fmt.Errorf("%s is methodology %s and this run measures with %s: not the same measurement, nothing to compare", *b.file, doc.MethodologyVersion, measure.MethodologyVersion)), false
		case doc.Encoding != "o200k_base":
			return b.failGate(env, diff.IssueEncodingChanged, fmt.Errorf("%s counts in %s and this run in o200k_base: different units, nothing to compare", *b.file, doc.Encoding)), false
		}
	}
	b.base = doc
	return ExitOK, true
}

// failGate reports a gate that failed before anything was compared, in
// the command's output format (--json, --markdown or text).
func (b *baselineFlags) failGate(env *Env, code string, err error) int {
	g := diff.LoadFailure(*b.max, err)
	g.Reasons[0].Code = code
	return diffGateFailed(env, b.cmd+" --max-increase", g, b.boolFlag("json"), b.boolFlag("markdown"), hintOf(err))
}

// boolFlag reports whether the command has the named boolean flag and it
// was set.
func (b *baselineFlags) boolFlag(name string) bool {
	fl := b.f.fs.Lookup(name)
	return fl != nil && fl.Value.String() == "true"
}

func hintOf(err error) string {
	var le *diff.LoadError
	if errors.As(err, &le) {
		return le.Hint
	}
	return ""
}

// loadReport reads and sniffs a report file ("-" for standard input).
func loadReport(env *Env, path string) (*diff.Doc, error) {
	data, err := readInput(env, path, measure.DefaultMaxBytes)
	if err != nil {
		return nil, hintMissing(err, "give a report: the JSON of 'mcpcost audit --json' or 'mcpcost measure --json', or a measurement.json (mcpcost's or mcp-context-cost's)")
	}
	doc, err := diff.Load(displayName(path), data)
	if err != nil {
		var le *diff.LoadError
		if errors.As(err, &le) && le.Hint != "" {
			return nil, withHint(err, le.Hint)
		}
		return nil, err
	}
	return doc, nil
}

// compare diffs a report of this run (any value whose JSON is a report)
// against the baseline, with the gate when --max-increase was given.
func (b *baselineFlags) compare(current any, name string) (*diff.Diff, error) {
	data, err := json.Marshal(current)
	if err != nil {
		return nil, fmt.Errorf("comparing with the baseline: %w", err)
	}
	cur, err := diff.Load(name, data)
	if err != nil {
		return nil, fmt.Errorf("comparing with the baseline: %w", err)
	}
	d := diff.Compare(b.base, cur)
	if b.gated() {
		d.Check(*b.max)
	}
	return d, nil
}

// exitCode is ExitFail when the gate failed, saying so on stderr, else
// ExitOK.
func (b *baselineFlags) exitCode(env *Env, d *diff.Diff) int {
	if d.Gate != nil && !d.Gate.Pass {
		increaseFailed(env, b.cmd+" --max-increase", d.Gate)
		return ExitFail
	}
	return ExitOK
}

// measureWithDiff is the JSON of "measure --json --baseline": the report
// (schema mcpcost.measure/v1) with the diff (mcpcost.diff/v1) beside it.
type measureWithDiff struct {
	*measure.Report
	Diff *diff.Diff `json:"diff"`
}

// finishMeasure prints a measure report with its diff against the
// baseline and returns the exit code: ExitFail when the gate failed,
// otherwise ExitOK for a measured server and ExitError for one that could
// not be measured (whose report says why on stderr already). quiet
// prints nothing: stdout holds a file (--out -, --html -).
func (b *baselineFlags) finishMeasure(env *Env, rep *measure.Report, jsonOut, quiet bool) int {
	measured := status.Status(rep.Status).OK()
	d, err := b.compare(rep, "this run")
	if err != nil {
		return fail(env, err)
	}
	switch {
	case quiet:
	case jsonOut:
		err = jsonTo(env, measureWithDiff{rep, d})
	default:
		if measured {
			err = render.MeasureText(env.Stdout, rep, env.Screen())
			fmt.Fprintln(env.Stdout)
		}
		if err == nil {
			err = render.DiffText(env.Stdout, d, env.Screen())
		}
	}
	if err != nil {
		return fail(env, err)
	}
	if code := b.exitCode(env, d); code != ExitOK {
		return code
	}
	if !measured {
		return ExitError
	}
	return ExitOK
}

// auditWithDiff is the JSON of "audit --json --baseline": the report
// (schema mcpcost.audit/v2) with the diff (mcpcost.diff/v1) beside it.
type auditWithDiff struct {
	*audit.Report
	Diff *diff.Diff `json:"diff"`
}

// writeAudit prints an audit report with its diff against the baseline:
// JSON with a "diff" member; text with the diff after the report;
// Markdown with the diff first (its summary line is the pull-request
// comment's first line) and the full audit collapsed after it. It returns
// ExitFail when the increase gate failed, else ExitOK.
func (b *baselineFlags) writeAudit(env *Env, rep *audit.Report, jsonOut, mdOut bool) (int, error) {
	d, err := b.compare(rep, "this run")
	if err != nil {
		return ExitError, err
	}
	switch {
	case jsonOut:
		err = jsonTo(env, auditWithDiff{rep, d})
	case mdOut:
		var sb strings.Builder
		if err = render.DiffMarkdown(&sb, d); err == nil {
			sb.WriteString("\n<details>\n<summary>The audit of this run</summary>\n\n")
			err = render.AuditMarkdown(&sb, rep)
			sb.WriteString("\n</details>\n")
		}
		if err == nil {
			_, err = fmt.Fprint(env.Stdout, sb.String())
		}
	default:
		if err = render.AuditText(env.Stdout, rep, env.Screen()); err == nil {
			fmt.Fprintln(env.Stdout)
			err = render.DiffText(env.Stdout, d, env.Screen())
		}
	}
	return b.exitCode(env, d), err
}
