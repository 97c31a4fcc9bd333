package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func init() {
	register(&Command{
		Name:  "statusline",
		Short: "Claude Code's statusLine: costs, the active block, a session's MCP",
		Usage: `usage: mcpcost statusline [--tz ZONE] [--db PATH] [--budget MS]

The command of Claude Code's statusLine setting (~/.claude/settings.json):

  "statusLine": {"type": "command", "command": "mcpcost statusline"}

It reads the JSON Claude Code writes on its standard input (the session,
its model, its workspace and its cost) and prints one line: the model,
the session's cost as Claude Code counts it, today's cost, the active
billing block's cost and time left, what the MCP servers of the session's
project put into every request before anything is typed (tokens and share
of the context window, from the measurement cache of 'mcpcost audit') and
the session's MCP result tokens so far.

It never launches a server and never reads transcripts: the usage store is
opened read-only as the last 'mcpcost usage' (or 'mcpcost serve') left
it, the measurement cache is only read, and the files it writes are two
memos beside that cache: the definitions' figure (kept 10 minutes, so a
config created meanwhile is seen when it expires) and the store's figures
of the session (kept while the store is unchanged, 10 minutes at most,
and not past midnight or the block's end). A part that has
no answer (no store, no cache) or none within --budget is left out, and
the line is always printed with status 0, as Claude Code blanks the line
on any other.

Flags:
  --tz ZONE     time zone of "today" (default: $TZ, else the system's zone,
                named as /etc/localtime names it)
  --db PATH     the usage store (default: in the user's data folder)
  --budget MS   the most time taken, in milliseconds: 10 to 1000 (default
                250; Claude Code redraws at most every 300 ms)`,
		Run: runStatusline,
	})
}

func runStatusline(env *Env, args []string) int {
	f := newFlags("statusline")
	tz := f.String("tz", "", "")
	dbPath := f.String("db", "", "")
	budgetMs := f.Int("budget", int(app.StatuslineBudget/time.Millisecond), "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos) > 0 || len(rest) > 0 {
		return usageError(env, "statusline", "statusline takes no arguments (got %q)", append(pos, rest...)[0])
	}
	if *budgetMs < 10 || *budgetMs > 1000 {
		return usageError(env, "statusline", "--budget must be from 10 to 1000 milliseconds, not %d", *budgetMs)
	}
	budget := time.Duration(*budgetMs) * time.Millisecond
	start := time.Now()
	raw, err := readBounded(env.Stdin, usage.MaxStatusInput+1, budget/2)
	var in usage.StatusInput
	if err == nil {
		in, err = usage.ParseStatusInput(raw)
	}
	if err != nil {
		// Claude Code shows the first line of standard output: say why.
		fmt.Fprintln(env.Stdout, "mcpcost: "+err.Error())
		return ExitOK
	}
	m := machine(env)
	m.DBPath = *dbPath
	m.Warn = nil
	line := m.Statusline(context.Background(), app.StatuslineOptions{Input: in, TZ: *tz, Budget: budget - time.Since(start)})
	fmt.Fprintln(env.Stdout, line.Text())
	return ExitOK
}

// readBounded reads r to its end, at most limit bytes, for at most d: a
// standard input left open is not waited for.
func readBounded(r io.Reader, limit int64, d time.Duration) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("no status input: Claude Code writes its JSON on the standard input")
	}
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit))
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			return nil, fmt.Errorf("reading the status input: %v", res.err)
		}
		return res.b, nil
	case <-time.After(d):
		return nil, fmt.Errorf("no status input within %s: Claude Code writes its JSON on the standard input and closes it", d)
	}
}
