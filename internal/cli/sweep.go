package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/sweep"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func init() {
	register(&Command{
		Name:  "sweep",
		Short: "measure a list of servers; publish a leaderboard, pages and badges",
		Usage: sweepUsage,
		Run:   runSweep,
	})
}

const sweepUsage = `usage: mcpcost sweep FILE.yaml --out DIR [flags]

Measure every server of FILE (a top-level servers: list in mcp-context-cost's
servers.yaml shape) as 'mcpcost measure' does: two launches, the failure
classes, a timeout retried once at twice the budget. Each server runs with
a fresh HOME and working folder and only PATH, HOME and its named variables
(env: names get the value "dummy", envValues: give values). An entry with
url: is connected to directly (Streamable HTTP, or transport: sse), its
headers: names sent with dummy values; remote: true without a url is listed,
not measured.

Written in DIR:
  results/NAME/measurement.json    verifiable by 'mcpcost verify' and
                                   mcp-context-cost
  badges/NAME.json, NAME.svg       shields.io endpoint JSON and an SVG
  leaderboard.md, leaderboard.csv  measured servers by tokens, then those
                                   not measured
  history.csv                      date,server,tokens,toolCount,status,
                                   isolation (upserted)
  servers/NAME.html, NAME.md       a page per server
  index.html                       the dashboard
  .mcpcost-sweep.lock              empty: held while a sweep writes DIR

Sweeps into one DIR at once (shards, say) each measure their own servers,
then write DIR one at a time, each reading its results and history again
first, so that each keeps what the others wrote; one waits up to 10 minutes
for another to finish writing DIR, then fails. A sweep publishes all of its
files or none: each is written beside its name first, then all are renamed
into place; one that cannot be written (a folder in its place, a full disk)
leaves DIR as it was.

When at least 5 previously measured servers fail now, and they are at least
half of those that can be compared, the sweep is a harness fault: nothing
is written and it exits 1.

Flags:
  --out DIR              where to publish (required)
  --only a,b             measure only these servers (the pages list all)
  --concurrency N        servers measured at once (default 2)
  --timeout D            budget of a server without timeoutSeconds (default 60s)
  --date YYYY-MM-DD      history's day (default today, UTC)
  --shards N --shard-index K
                         measure the servers whose name falls in shard K of N
                         (FNV-1a of the name modulo N: stable as servers
                         come and go)
  --isolate MODE         none (default), sandbox (Linux namespaces by unshare:
                         a root of its own with the system folders read-only,
                         the fresh HOME and working folder and the server's
                         own files; the user's home and all else out of
                         reach) or docker (each server in a container,
                         mcp-context-cost's docker run)
  --no-network           sandbox and docker: no network

Exit status: 0 published, 1 harness fault, 2 usage or runtime error.`

func runSweep(env *Env, args []string) int {
	f := newFlags("sweep")
	out := f.String("out", "", "")
	only := f.String("only", "", "")
	concurrency := f.Int("concurrency", 2, "")
	date := f.String("date", "", "")
	shards := f.Int("shards", 0, "")
	shardIndex := f.Int("shard-index", -1, "")
	isolate := f.String("isolate", app.IsolateNone, "")
	noNetwork := f.Bool("no-network", "")
	timeout := app.DefaultTimeout
	f.fs.DurationVar(&timeout, "timeout", app.DefaultTimeout, "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	pos = append(pos, rest...)
	switch {
	case len(pos) != 1:
		return usageError(env, "sweep", "sweep takes one servers file, got %d", len(pos))
	case *out == "":
		return usageError(env, "sweep", "--out DIR is required")
	case *out == "-":
		return usageError(env, "sweep", "--out names the folder the sweep writes; standard output (-) cannot hold its files")
	case *concurrency < 1 || *concurrency > 64:
		return usageError(env, "sweep", "--concurrency must be from 1 to 64")
	case timeout <= 0 || timeout > time.Duration(sweep.MaxTimeoutSeconds)*time.Second:
		return usageError(env, "sweep", "--timeout must be above 0 and at most 1h")
	case f.Set("shard-index") && !f.Set("shards"):
		return usageError(env, "sweep", "--shard-index needs --shards")
	case f.Set("shards") && (*shards < 1 || *shards > 1000):
		return usageError(env, "sweep", "--shards must be from 1 to 1000")
	case f.Set("shards") && (*shardIndex < 0 || *shardIndex >= *shards):
		return usageError(env, "sweep", "--shard-index must be from 0 to %d", *shards-1)
	case f.Set("shards") && *only != "":
		return usageError(env, "sweep", "--only and --shards cannot be combined")
	case *noNetwork && *isolate == app.IsolateNone:
		return usageError(env, "sweep", "--no-network needs --isolate sandbox or docker")
	}
	if *date != "" {
		if _, err := time.Parse(time.DateOnly, *date); err != nil {
			return usageError(env, "sweep", "--date must be YYYY-MM-DD, not %q", textsafe.Text(*date))
		}
	}
	data, err := readInput(env, pos[0], clients.MaxConfigSize)
	if err != nil {
		return fail(env, err)
	}
	servers, err := sweep.Parse(data, displayName(pos[0]))
	if err != nil {
		var le *clients.LimitError
		if errors.As(err, &le) {
			err = withHint(err, "write the servers out one by one: no anchors and aliases that repeat them, no nesting that deep")
		} else if errorHint(err) == "" {
			err = withHint(err, "fix the YAML at that place: the file holds a top-level servers: list ('mcpcost help sweep' shows one)")
		}
		return fail(env, err)
	}
	var swept map[string]bool
	pick := func(list []sweep.Server) {
		swept = map[string]bool{}
		for _, s := range list {
			swept[s.Name] = true
		}
	}
	if *only != "" {
		var names []string
		for _, n := range strings.Split(*only, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		kept, unknown := sweep.Only(servers, names)
		if len(unknown) > 0 {
			return usageError(env, "sweep", "--only: no server %s in %s", textsafe.Text(strings.Join(unknown, ", ")), textsafe.Text(pos[0]))
		}
		pick(kept)
	}
	if f.Set("shards") {
		pick(sweep.Shard(servers, *shards, *shardIndex))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := machine(env).Sweep(ctx, app.SweepOptions{
		Servers: servers, Swept: swept, Out: *out, Timeout: timeout, Concurrency: *concurrency,
		Date: *date, Isolate: *isolate, NoNetwork: *noNetwork, Progress: progressWriter{env, env.Stderr},
	})
	if err != nil {
		return failCall(env, "sweep", err)
	}
	for _, w := range res.Warnings {
		warnf(env, "%s", w)
	}
	measured := 0
	for _, s := range res.Measured {
		if s.Tokens != nil {
			measured++
		}
	}
	if res.Guard.Fault {
		checkFailed(env, "sweep", "harness fault: %s; nothing written (regressed: %s)", res.Guard.Reason, strings.Join(res.Guard.RegressedNames, ", "))
		hintf(env, "check the machine (PATH, network, package caches) and run the sweep again; the published files are as they were")
		return ExitFail
	}
	fmt.Fprintf(env.Stderr, "mcpcost: %s\n", res.Guard.Reason)
	for _, s := range res.Measured {
		if s.Tokens != nil {
			fmt.Fprintf(env.Stdout, "%s: %s tokens across %s (%s)\n", s.Name, num.Int(*s.Tokens), num.Count(*s.Tools, "tool"), s.Status)
		} else {
			fmt.Fprintf(env.Stdout, "%s: %s: %s\n", s.Name, s.Status, textsafe.Text(clipNote(s.Notes)))
		}
	}
	fmt.Fprintf(env.Stdout, "swept %s: %d measured; wrote %s in %s\n", num.Count(len(res.Measured), "server"), measured, num.Count(len(res.Written), "file"), textsafe.Text(*out))
	return ExitOK
}

func clipNote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}
