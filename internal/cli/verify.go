package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/signal"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/redact"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
)

func init() {
	register(&Command{
		Name:  "verify",
		Short: "re-derive measurement.json files (mcpcost's or mcp-context-cost's)",
		Usage: verifyUsage,
		Run:   runVerify,
	})
}

const verifyUsage = `usage: mcpcost verify [--json] FILE...
       mcpcost verify [--json] --remote URL

Re-derive each measurement.json from its rawToolsCapture: canonical JSON,
the o200k_base count, the SHA-256 and the tool count, and the per-tool
numbers where they are stored. Files written by mcpcost and by
mcp-context-cost are both accepted.

Prints "OK name (file): N tokens ..." per file, or FAIL and each problem. A
measurement that records a failure (startup-failure, timeout, ...) and
holds no capture and no count is SKIP with its status: nothing was measured,
so there is nothing to re-derive and nothing that could disagree (in JSON,
"skipped": true and "ok": false).

Flags:
  --json             print the results as JSON (schema mcpcost.verify/v1)
  --remote URL       fetch a published measurement.json and verify it
                     (https, or http on loopback; 15s; --max-bytes)
  --max-bytes SIZE   refuse files larger than SIZE (default 256M)

Exit status: 0 every file agrees or is skipped, 1 a file disagrees, 2 a
file cannot be read as a measurement (the other files are still
verified).`

// verifyReport is the JSON of "mcpcost verify".
type verifyReport struct {
	Schema  string                  `json:"schema"`
	OK      bool                    `json:"ok"`
	Results []*measure.Verification `json:"results"`
	Errors  []verifyError           `json:"errors"`
}

type verifyError struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

func runVerify(env *Env, args []string) int {
	f := newFlags("verify")
	jsonFlag := f.Bool("json", "")
	maxBytes := byteSize(measure.DefaultMaxBytes)
	f.Var(&maxBytes, "max-bytes", "")
	remote := f.String("remote", "", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	pos = append(pos, rest...)
	if *remote != "" && len(pos) > 0 {
		return usageError(env, "verify", "--remote takes the place of the files")
	}
	if len(pos) == 0 && *remote == "" {
		return usageError(env, "verify", "no measurement.json given")
	}
	var fetched []byte
	if *remote != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		b, err := app.FetchMeasurement(ctx, *remote, int64(maxBytes))
		stop()
		if err != nil {
			if *jsonFlag {
				rep := verifyReport{Schema: measure.VerifySchema, Results: []*measure.Verification{}, Errors: []verifyError{{File: redact.URL(*remote), Error: err.Error()}}}
				if jerr := render.JSON(env.Stdout, rep); jerr != nil {
					return fail(env, jerr)
				}
				return ExitError
			}
			return failCall(env, "verify", err)
		}
		fetched = b
		pos = []string{*remote}
	}
	rep := verifyReport{Schema: measure.VerifySchema, OK: true, Results: []*measure.Verification{}, Errors: []verifyError{}}
	code := ExitOK
	for _, p := range pos {
		name := displayName(p)
		var data []byte
		var err error
		if fetched != nil {
			data, name = fetched, redact.URL(p)
		} else {
			data, err = readInput(env, p, int64(maxBytes))
		}
		var v *measure.Verification
		if err == nil {
			v, err = measure.Verify(name, data, nil)
		}
		if err != nil {
			code = ExitError
			rep.OK = false
			rep.Errors = append(rep.Errors, verifyError{File: name, Error: err.Error()})
			if !*jsonFlag {
				errorf(env, "%v", err)
				hintf(env, "%s", verifyHint(err, fetched != nil))
			}
			continue
		}
		rep.Results = append(rep.Results, v)
		if !v.OK && !v.Skipped {
			rep.OK = false
			if code == ExitOK {
				code = ExitFail
			}
		}
		if !*jsonFlag {
			printVerification(env, v)
		}
	}
	if *jsonFlag {
		if err := render.JSON(env.Stdout, rep); err != nil {
			return fail(env, err)
		}
	}
	var disagree []string
	for _, v := range rep.Results {
		if !v.OK && !v.Skipped {
			disagree = append(disagree, v.File)
		}
	}
	if len(disagree) > 0 {
		checkFailed(env, "verify", "%d of %s %s: %s", len(disagree), num.Count(len(rep.Results), "measurement"),
			num.Plural(len(disagree), "disagrees with its capture", "disagree with their captures"), num.JoinAnd(disagree))
	}
	return code
}

// printVerification prints v's line, naming its server and file, fitted
// to the screen.
func printVerification(env *Env, v *measure.Verification) {
	if err := render.VerificationText(env.Stdout, v, env.Screen()); err != nil {
		errorf(env, "%v", err)
	}
}

// verifyHint is what to do about a file verify could not read as a
// measurement: its own hint, else by where it came from.
func verifyHint(err error, remote bool) string {
	var h interface{ Hint() string }
	var nm *measure.NotMeasurementError
	switch {
	case errors.As(err, &h) && h.Hint() != "":
		return h.Hint()
	case errors.As(err, &nm) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errIsDir):
		return "verify reads measurement.json files, as written by 'mcpcost measure --out'"
	case remote:
		return "the URL answered with something else than a whole measurement.json: check the URL, or fetch it again"
	}
	if h := classHint(err); h != "" {
		return h
	}
	return "the file is damaged or not a measurement: write it again with 'mcpcost measure --out FILE'"
}
