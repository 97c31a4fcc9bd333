package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func init() {
	register(&Command{
		Name:  "measure",
		Short: "measure one server: its tool definitions' tokens per tool and part",
		Usage: measureUsage,
		Run:   runMeasure,
	})
}

const measureUsage = `usage: mcpcost measure [flags] FILE|-
       mcpcost measure [flags] URL
       mcpcost measure [flags] -- COMMAND [ARGS...]

Measure what one MCP server's tool definitions cost in context: the
o200k_base token count of the canonical JSON of its tools/list result
(JSON.stringify of the concatenated tools arrays, counted as one string:
the published methodology 1.0), the canonical SHA-256, and per tool its
own count, share and parts (name, title, description, inputSchema,
outputSchema, annotations, _meta, other fields), heaviest first.

A FILE (or - for standard input) holds a tools/list result
({"tools":[...]}), a JSON-RPC response or a stream of JSON-RPC messages one
per line (the tools of every tools/list response are concatenated in
order), a bare array of tools, or a measurement.json.

Live targets run the command (no shell) or connect to the URL over
Streamable HTTP, falling back to the older HTTP+SSE transport. The server is
captured twice (two launches); a difference marks it dynamic and names the
tools that changed. Instructions, prompts, resources and resource
templates are counted beside the tools, with the session-start load of a
client that defers tool definitions (tool names plus instructions).

Flags:
  --json             print the report as JSON (schema mcpcost.measure/v1)
  --out FILE         also write measurement.json to FILE; "mcpcost verify"
                     (or mcp-context-cost verify) re-derives it; - writes
                     it to standard output in place of the report
  --name NAME        the server's name in the report (default: derived from
                     the file, or the server's own name)
  --html FILE        also write the measurement as one self-contained HTML
                     page: a treemap of the tools and their parts, the
                     per-tool table; - writes it to standard output in
                     place of the report (one of --json, --out - and
                     --html - at a time)
  --max-bytes SIZE   refuse inputs larger than SIZE (default 256M); memory
                     stays proportional to the input (about 3.5x at its
                     peak: 352 MB measured for a 100 MB tools list)
  --sort KEY         list the tools by tokens (the default: heaviest first,
                     ties in capture order), name, or a part's tokens:
                     description, inputSchema or outputSchema (heaviest
                     first, ties by name); the JSON's tools follow it
  --top N            list only the first N tools (the total still counts
                     every one; the JSON and --out keep every tool)
  --budget N         exit 1 when the total exceeds N tokens

Gate a server's pull requests:
` + baselineUsage + `

Live servers:
  --header 'NAME: VALUE'   send a header (repeatable); values are never shown
  --header-env VAR         send the headers held in VAR, one 'Name: value'
                           per line
  --env NAME=VALUE|NAME    set a variable for the command (repeatable); NAME
                           alone passes this environment's value through
  --cwd DIR                run the command in DIR
  --timeout DURATION       the whole measurement of the server, both
                           captures included (default 60s)
  --protocol-version V     offer this MCP protocol version (default:
                           negotiate, newest first)
  --transport T            stdio, http (Streamable HTTP, falls back to SSE)
                           or sse
  --once                   capture once instead of twice

What Claude receives (a different number from the headline, shown beside
it): the request Claude Code sends for these tools (mcp__server__tool
names, descriptions cut to 2 KB, input_schema only), the session-start load
of a deferring client, and mcp-context-cost's published Claude figure when
the capture's SHA-256 matches exactly.
  --claude                 also count the request with Anthropic's
                           count_tokens (needs ANTHROPIC_API_KEY; honours
                           ANTHROPIC_BASE_URL)
  --model MODEL            the model for --claude (default: the current
                           Sonnet)

Per-tool counts do not add up to the total: the total counts the whole
array once, and tokens merge differently at the joins between tools.

Exit status: 0 measured, within the gates; 1 a gate failed (--budget,
--max-increase); 2 a usage error, an input that does not exist or cannot be
read, or a server that could not be measured (it did not start, answer or
speak MCP: there is no measurement to gate).`

func runMeasure(env *Env, args []string) int {
	f := newFlags("measure")
	jsonFlag := f.Bool("json", "")
	outFlag := f.String("out", "", "")
	nameFlag := f.String("name", "", "")
	htmlFlag := f.String("html", "", "")
	maxBytes := byteSize(measure.DefaultMaxBytes)
	f.Var(&maxBytes, "max-bytes", "")
	live := addLiveFlags(f)
	bl := addBaselineFlags(f)
	v := &measureView{
		top:    f.Int("top", 0, ""),
		sortBy: f.String("sort", "tokens", ""),
		budget: f.Int("budget", 0, ""),
	}
	f.unknown = serverFlagHint
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	v.budgetSet, v.sorted = f.Set("budget"), f.Set("sort")
	switch {
	case f.Set("top") && *v.top < 1:
		return usageError(env, "measure", "--top must be 1 or more, got %d", *v.top)
	case *v.budget < 0:
		return usageError(env, "measure", "--budget must be zero or a positive number of tokens, got %d", *v.budget)
	}
	if err := measure.SortTools(nil, *v.sortBy); err != nil {
		return badValue(env, "measure", "--sort ", *v.sortBy, measure.SortKeys, err.Error())
	}
	if countTrue(*jsonFlag, *outFlag == "-", *htmlFlag == "-") > 1 {
		return usageError(env, "measure", "only one of --json, --out - and --html - can write to standard output")
	}
	if *outFlag != "" && *outFlag != "-" {
		// Before a server is launched for nothing.
		if err := outputFolder("--out", *outFlag); err != nil {
			return fail(env, err)
		}
	}
	switch {
	case rest != nil && len(pos) > 0:
		return usageError(env, "measure", "give either a target or -- COMMAND, not both")
	case rest != nil && len(rest) == 0:
		return usageError(env, "measure", "no command after --")
	case rest == nil && len(pos) == 0:
		return usageError(env, "measure", "nothing to measure: give a FILE, - for standard input, a URL, or -- COMMAND ARGS")
	case len(pos) > 1:
		return usageError(env, "measure", "measure takes one target, got %d", len(pos))
	}
	if f.Set("html") && *htmlFlag == "" {
		return usageError(env, "measure", "--html takes a file name, or - for standard output")
	}
	if *htmlFlag != "" && *htmlFlag != "-" {
		if err := outputFolder("--html", *htmlFlag); err != nil {
			return fail(env, err)
		}
	}
	// --out - or --html - puts that file on stdout in place of the report.
	v.quiet = *outFlag == "-" || *htmlFlag == "-"
	if code, ok := bl.prepare(env, "measure", true); !ok {
		return code
	}
	if rest != nil || isURL(pos[0]) {
		urlArg := ""
		if rest == nil {
			urlArg = pos[0]
		}
		t, err := live.target(env, urlArg, rest)
		if err != nil {
			var ve *valueError
			if errors.As(err, &ve) {
				return badValue(env, "measure", ve.flag, ve.value, ve.values, ve.msg)
			}
			return usageError(env, "measure", "%v", err)
		}
		if *live.timeout <= 0 {
			return usageError(env, "measure", "--timeout must be positive, such as 30s or 2m")
		}
		return measureLive(env, t, live, *nameFlag, *jsonFlag, *outFlag, *htmlFlag, bl, v)
	}
	for _, fl := range []string{"header", "header-env", "env", "cwd", "timeout", "protocol-version", "transport", "once"} {
		if f.Set(fl) {
			return usageError(env, "measure", "--%s is for measuring a running server (a URL or -- COMMAND), not a file", fl)
		}
	}
	target := pos[0]
	data, err := readInput(env, target, int64(maxBytes))
	if err != nil {
		return fail(env, commandHint(target, err))
	}
	large := len(data) > 16<<20
	if large {
		// A large input: keep the heap close to what is live (the parsed
		// tools and their canonical form) rather than twice that, and hand
		// back what each stage leaves behind.
		defer debug.SetGCPercent(debug.SetGCPercent(25))
	}
	capture, err := measure.ParseInput(displayName(target), data)
	data = nil
	if err != nil {
		if err = commandHint(target, err); errorHint(err) == "" {
			err = withHint(err, "fix the file: measure reads a tools/list result or a measurement.json; or launch the server with -- COMMAND ARGS")
		}
		return fail(env, err)
	}
	// The server's name: --name, else a measurement.json's serverName,
	// else the file's.
	name, from := *nameFlag, "--name"
	if name == "" {
		name, from = strings.TrimSpace(capture.ServerName), "serverName"
	}
	if name == "" {
		name, from = nameFromPath(target), "file"
	}
	if large {
		debug.FreeOSMemory() // the input is garbage now
	}
	result := measure.Tools(capture.Tools, nil)
	if large {
		debug.FreeOSMemory()
	}
	src := &measure.Source{Kind: capture.Kind, File: displayName(target), Pages: capture.Pages}
	rec := carried(capture.Recorded, result)
	rep := measure.NewReport(name, rec.status, src, result)
	rep.ServerVersion, rep.Extras, rep.ChangedTools, rep.Detail = rec.ServerVersion, rec.Extras, rec.ChangedTools, rec.detail
	rep.Warnings = append(rep.Warnings, rec.Warnings...)
	if rec.warning != "" {
		rep.Warnings = append(rep.Warnings, rec.warning)
	}
	if capture.Skipped > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d JSON-RPC %s that %s not tools/list responses skipped", capture.Skipped, num.Plural(capture.Skipped, "message", "messages"), num.Plural(capture.Skipped, "was", "were")))
	}
	if w := measure.RepeatedNamesWarning(name, capture.Tools); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	if *outFlag != "" {
		file := measure.NewFile(result, rec.status, name, "mcpcost "+Version(), env.Now())
		file.Source = src
		rec.onto(file)
		if err := writeFile(env, *outFlag, file); err != nil {
			return fail(env, err)
		}
	}
	spans := result.Spans
	result = nil
	if large {
		debug.FreeOSMemory()
	}
	if err := addClaude(env, rep, name, from, capture.Tools, rec.instructions(), spans, live); err != nil {
		warnf(env, "%v", err)
	}
	v.apply(rep)
	if err := writeMeasureHTML(env, *htmlFlag, rep); err != nil {
		return fail(env, err)
	}
	return v.finish(env, rep, bl, *jsonFlag)
}

// carry is what a measurement.json read by measure records beside its
// capture, carried into the report and the file measure writes, so that
// measuring a measurement.json again loses nothing of it. The counts are
// derived again. What belongs to the capture itself (when it was taken,
// dynamic, the extras, the notes and warnings) is carried only while the
// capture is the one recorded (the same canonical sha256).
type carry struct {
	measure.File
	status  status.Status
	detail  string
	warning string
}

func carried(rec *measure.File, r *measure.Result) carry {
	c := carry{status: status.Measured}
	if rec == nil {
		return c
	}
	same := rec.CanonicalSha256 != nil && *rec.CanonicalSha256 == r.CanonicalSha256
	c.ServerVersion, c.LaunchCommand, c.EnvVarNames = rec.ServerVersion, rec.LaunchCommand, rec.EnvVarNames
	c.ServerInstructions, c.Isolation, c.TimeoutMs = rec.ServerInstructions, rec.Isolation, rec.TimeoutMs
	c.Package, c.PackageVersion = rec.Package, rec.PackageVersion
	if !same {
		if rec.CanonicalSha256 != nil {
			c.warning = "the capture is not the one the file records (its canonical sha256 differs): counts derived again, measuredAt is now, and the extras, notes and warnings recorded are left out"
		}
		return c
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", rec.MeasuredAt); err == nil {
		c.MeasuredAt = rec.MeasuredAt
	}
	c.Extras, c.ChangedTools, c.Warnings, c.Notes, c.Source = rec.Extras, rec.ChangedTools, rec.Warnings, rec.Notes, rec.Source
	if status.Status(rec.Status) == status.Dynamic {
		c.status, c.detail = status.Dynamic, rec.Notes
	}
	return c
}

// onto sets on f what c carries.
func (c carry) onto(f *measure.File) {
	f.ServerVersion, f.LaunchCommand, f.EnvVarNames = c.ServerVersion, c.LaunchCommand, c.EnvVarNames
	f.ServerInstructions, f.Isolation, f.TimeoutMs = c.ServerInstructions, c.Isolation, c.TimeoutMs
	f.Package, f.PackageVersion = c.Package, c.PackageVersion
	f.Extras, f.ChangedTools, f.Warnings, f.Notes = c.Extras, c.ChangedTools, c.Warnings, c.Notes
	if c.MeasuredAt != "" {
		f.MeasuredAt = c.MeasuredAt
	}
	if c.Source != nil {
		f.Source = c.Source
	}
}

// instructions are the server's instructions as recorded, nil for none.
func (c carry) instructions() *string {
	var s string
	if len(c.ServerInstructions) == 0 || json.Unmarshal(c.ServerInstructions, &s) != nil {
		return nil
	}
	return &s
}

// measureView is how a measurement is shown and gated: --sort, --top and
// --budget. The measurement itself (and measurement.json) is not changed.
type measureView struct {
	top, budget *int
	sortBy      *string
	budgetSet   bool
	sorted      bool // --sort given; else heaviest first, ties in capture order
	quiet       bool // stdout holds a file (--out -, --html -), not the report
}

// finish prints the report (with its diff against a baseline, if one is
// given) unless stdout holds a file instead, and returns the exit code of
// the gates.
func (v *measureView) finish(env *Env, rep *measure.Report, bl *baselineFlags, jsonOut bool) int {
	switch {
	case bl.active():
		return v.code(env, bl.finishMeasure(env, rep, jsonOut, v.quiet), rep)
	case v.quiet:
		return v.code(env, ExitOK, rep)
	}
	return v.code(env, writeMeasureReport(env, rep, jsonOut), rep)
}

// apply orders the report's tools, sets how many the text lists, and
// checks the budget.
func (v *measureView) apply(rep *measure.Report) {
	if v.sorted {
		measure.SortTools(rep.Tools, *v.sortBy) // the key was checked
	}
	rep.Top = *v.top
	if v.budgetSet && status.Status(rep.Status).OK() {
		rep.CheckBudget(*v.budget)
	}
}

// code is the exit code of a report written with code: a budget that
// fails turns a success into ExitFail, and says so on stderr.
func (v *measureView) code(env *Env, code int, rep *measure.Report) int {
	if code == ExitError || rep.Budget == nil || rep.Budget.Pass {
		return code
	}
	measureBudgetFailed(env, rep)
	return ExitFail
}

// writeMeasureHTML writes the measurement's page to path ("" for none,
// "-" for stdout).
func writeMeasureHTML(env *Env, path string, rep *measure.Report) error {
	if path == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := render.MeasureHTML(&buf, rep); err != nil {
		return err
	}
	what := rep.Status
	if status.Status(rep.Status).OK() {
		what = fmt.Sprintf("%s in %s", num.Count(rep.TotalTokens, "token"), num.Count(rep.ToolCount, "tool"))
	}
	return writeOut(env, path, buf.Bytes(), "HTML page of "+textsafe.Cut(rep.Server, textsafe.MaxName)+": "+what)
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

func writeMeasureReport(env *Env, rep *measure.Report, jsonOut bool) int {
	var err error
	if jsonOut {
		err = jsonTo(env, rep)
	} else {
		err = render.MeasureText(env.Stdout, rep, env.Screen())
	}
	if err != nil {
		return fail(env, err)
	}
	return ExitOK
}

// jsonTo writes v as JSON on stdout.
func jsonTo(env *Env, v any) error { return render.JSON(env.Stdout, v) }

func sortStrings(s []string) { sort.Strings(s) }

// writeFile writes measurement.json to path (--out; "-" for stdout).
func writeFile(env *Env, path string, f *measure.File) error {
	b, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	what := f.Status
	if f.TotalTokens != nil && f.ToolCount != nil {
		what = fmt.Sprintf("%s in %s", num.Count(*f.TotalTokens, "token"), num.Count(*f.ToolCount, "tool"))
	}
	return writeOut(env, path, b, "measurement.json of "+textsafe.Cut(f.ServerName, textsafe.MaxName)+": "+what)
}

// commandHint adds, to the error of a file that is missing or is a
// program, how to launch a server instead: a command named as the target
// (mcpcost measure ./server) is read as a file.
func commandHint(target string, err error) error {
	var h interface{ Hint() string }
	if target == "-" || errors.As(err, &h) {
		return err
	}
	fi, serr := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !bareWord(target):
		return withHint(err, "check the path: measure reads a file holding a tools/list result (or a measurement.json), - for standard input, or a URL")
	case errors.Is(err, fs.ErrNotExist) || (serr == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0):
		return withHint(err, "to launch a server, put its command after --: mcpcost measure -- COMMAND ARGS")
	}
	return hintMissing(err, "measure takes a file holding a tools/list result (or a measurement.json), - for standard input, a URL, or -- COMMAND ARGS to launch a server")
}

// bareWord reports whether a target that is not there reads as a
// command's name (npx, my-server) rather than a file's path (nope.json,
// ./server): no folder and no extension.
func bareWord(target string) bool {
	return !strings.ContainsAny(target, `/\`) && filepath.Ext(target) == ""
}

// serverFlagHint is the hint for a flag measure does not know that comes
// after a first argument that is not a file there (mcpcost measure npx -y
// PACKAGE): a server's command given without "--" before it. The command
// is shown as far as that flag, its secrets hidden.
func serverFlagHint(fe *flagError) string {
	if len(fe.after) == 0 {
		return ""
	}
	target := fe.after[0]
	if target == "-" || strings.Contains(target, "://") {
		return ""
	}
	if fi, err := os.Stat(target); err == nil && !(fi.Mode().IsRegular() && fi.Mode()&0o111 != 0) {
		return ""
	}
	cmd := fe.after
	for i, a := range fe.after {
		if lead, _, _ := strings.Cut(a, "="); i > 0 && lead == fe.flag {
			cmd = fe.after[:i+1]
			break
		}
	}
	words := redact.Args(cmd)
	for i, w := range words {
		words[i] = shellWord(w)
	}
	if len(cmd) < len(fe.after) {
		words = append(words, "...")
	}
	return "to launch a server, put its command after --: mcpcost measure -- " + strings.Join(words, " ")
}

// shellWord quotes s for a shell when it holds more than letters, digits
// and the punctuation of flags, paths and packages.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./*-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
