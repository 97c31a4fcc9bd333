// Package cli is mcpcost's command line: one file per command, a shared
// flag parser, exit codes and the error and hint lines.
//
// Exit codes: 0 ok, 1 a gate or check failed, 2 a usage or runtime error.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitFail  = 1 // a gate or check failed
	ExitError = 2 // usage or runtime error
)

// Env is what a command may touch of the outside world. Tests replace any
// of it.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment.
	Getenv func(string) string
	// Environ lists the environment as NAME=value pairs.
	Environ func() []string
	// Now is the clock.
	Now func() time.Time
	// StdoutTTY and StderrTTY say whether those streams are terminals.
	StdoutTTY, StderrTTY bool
	// Columns is the width of the terminal stdout is, 0 when unknown.
	Columns int
	// Color is the global --color flag: auto (or empty), always or never.
	Color string
	// Quiet is the global --quiet flag: no progress on stderr.
	Quiet bool
	// ErrColumns is the width of the terminal stderr is, 0 when unknown.
	ErrColumns int

	progressMu   sync.Mutex
	progressOpen bool // a progress line is on the terminal, to clear
	// hintOwed is set by an error line and cleared by a hint line: Run
	// prints the command's manual hint for an error left without one.
	hintOwed atomic.Bool
	// implicit is set while the default command runs because none was
	// named; named is then set, by its flag parsing, to the arguments of
	// a command whose name follows its leading flags (the name first):
	// Run runs that command instead.
	implicit bool
	named    []string
}

// A Command is one subcommand.
type Command struct {
	Name  string
	Short string // one line for the command list
	Usage string // the synopsis and the manual, printed by "help NAME"
	Run   func(env *Env, args []string) int
	// Hidden commands are not listed.
	Hidden bool
}

var commands = map[string]*Command{}

// register adds a command; each command file calls it from init.
func register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("cli: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// defaultCommand runs when no command is named.
const defaultCommand = "audit"

// Main runs mcpcost with args (without the program name) and returns the
// exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     stderr,
		Getenv:     os.Getenv,
		Environ:    os.Environ,
		Now:        time.Now,
		StdoutTTY:  isTerminal(stdout),
		StderrTTY:  isTerminal(stderr),
		Columns:    terminalColumns(stdout),
		ErrColumns: terminalColumns(stderr),
	}
	return Run(env, args)
}

// wantsHelp reports whether a command's arguments ask for its manual:
// -h, -help or --help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// Run dispatches args to a command.
func Run(env *Env, args []string) int {
	args, err := globalFlags(env, args)
	if ve := (*valueError)(nil); errors.As(err, &ve) {
		return badValue(env, "", ve.flag, ve.value, ve.values, ve.msg)
	}
	if err != nil {
		errorf(env, "%v", err)
		hintf(env, "run 'mcpcost help' for usage")
		return ExitError
	}
	name := defaultCommand
	env.implicit = len(args) == 0 || strings.HasPrefix(args[0], "-")
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "--help" || a == "-help":
			printHelp(env.Stdout, env.Screen().Width)
			return ExitOK
		case a == "-v" || a == "--version" || a == "-version":
			fmt.Fprintf(env.Stdout, "mcpcost %s\n", Version())
			return ExitOK
		case !strings.HasPrefix(a, "-"):
			name = a
			args = args[1:]
		}
	}
	c, ok := commands[name]
	if !ok {
		return unknownCommand(env, name)
	}
	if c.Run == nil {
		errorf(env, "command %q is not available in this build", name)
		return ExitError
	}
	if wantsHelp(args) {
		fmt.Fprintln(env.Stdout, strings.TrimSpace(c.Usage))
		return ExitOK
	}
	code := c.Run(env, args)
	if named := env.named; named != nil {
		env.implicit, env.named = false, nil
		return Run(env, named)
	}
	env.implicit = false
	if env.hintOwed.Load() {
		hintf(env, "run 'mcpcost help %s' for what the command needs", name)
	}
	return code
}

// printHelp prints the command list, each command's line wrapped to
// width under its description.
func printHelp(w io.Writer, width int) {
	fmt.Fprintf(w, "usage: mcpcost [COMMAND] [flags] [arguments]\n\n")
	fmt.Fprintf(w, "mcpcost %s: what your MCP servers cost in an agent's context window.\n\nCommands:\n", Version())
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	w0 := 0
	for _, n := range names {
		w0 = max(w0, len(n))
	}
	for _, n := range names {
		for _, l := range render.Wrap(fmt.Sprintf("  %-*s  ", w0, n), commands[n].Short, strings.Repeat(" ", w0+4), width) {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "\nFlags of every command:\n  --color=WHEN  colour: auto (on a terminal, unless NO_COLOR is set or\n                TERM=dumb), always or never\n  --quiet, -q   no progress on stderr\n")
	fmt.Fprintf(w, "\nWith no command, mcpcost runs %q. 'mcpcost COMMAND --help' (or 'mcpcost\nhelp COMMAND') prints a command's manual; -v or --version the version.\n", defaultCommand)
	fmt.Fprint(w, "\n"+exitStatusUsage+"\n")
}

// exitStatusUsage is the meaning of each exit code, the same for every
// command (the README's "Exit status" says the same).
const exitStatusUsage = `Exit status:
  0  done: every check asked for passed
  1  a gate or check failed: a budget, threshold, increase, --fail-on,
     verify or a sweep's harness guard; a config that could not be read
     (audit, clients); a server that could not be measured, or no config
     found (audit)
  2  a usage or runtime error: a bad flag or argument, an input that does
     not exist or cannot be read, a server that cannot be started by
     'mcpcost measure'`

func init() {
	register(&Command{
		Name:  "help",
		Short: "show the manual of mcpcost or of one command",
		Usage: `usage: mcpcost help [COMMAND]

Without COMMAND, lists the commands; with one, prints its manual (as
'mcpcost COMMAND --help' does).

Exit status: 0 done, 2 an unknown command.`,
		Run: func(env *Env, args []string) int {
			if len(args) == 0 {
				printHelp(env.Stdout, env.Screen().Width)
				return ExitOK
			}
			for _, a := range args {
				if len(a) > 1 && a[0] == '-' {
					return usageError(env, "help", "unknown flag %s for help: help takes a command's name, no flags", a)
				}
			}
			if len(args) > 1 {
				return usageError(env, "help", "help takes at most one command, got %d arguments", len(args))
			}
			c, ok := commands[args[0]]
			if !ok {
				return unknownCommand(env, args[0])
			}
			fmt.Fprintln(env.Stdout, strings.TrimSpace(c.Usage))
			return ExitOK
		},
	})
	register(&Command{
		Name:  "version",
		Short: "print mcpcost's version",
		Usage: `usage: mcpcost version

Prints mcpcost's version (as 'mcpcost --version' and 'mcpcost -v' do): the
version it was built with, or devel for a build from a checkout.

Exit status: 0 done, 2 an argument was given.`,
		Run: func(env *Env, args []string) int {
			if len(args) > 0 {
				if a := args[0]; len(a) > 1 && a[0] == '-' && a != "--" {
					return usageError(env, "version", "unknown flag %s for version: version takes no flags", a)
				}
				return usageError(env, "version", "version takes no arguments (got %q)", args[0])
			}
			fmt.Fprintf(env.Stdout, "mcpcost %s\n", Version())
			return ExitOK
		},
	})
}

// unknownCommand reports a command name that is not mcpcost's, with the
// nearest one when the name looks like a slip of the keys.
func unknownCommand(env *Env, name string) int {
	errorf(env, "unknown command %q", name)
	if near := nearest(name, commandNames()); near != "" {
		hintf(env, "did you mean 'mcpcost %s'? ('mcpcost help' lists the commands)", near)
	} else {
		hintf(env, "run 'mcpcost help' for the list of commands")
	}
	return ExitError
}

// errorf prints "mcpcost: error: ..." to stderr.
func errorf(env *Env, format string, a ...any) { diagnostic(env, "error", format, a) }

// hintf prints "mcpcost: hint: ..." to stderr.
func hintf(env *Env, format string, a ...any) { diagnostic(env, "hint", format, a) }

// noTranscriptsHint says where transcripts are looked for when none was
// found, one "mcpcost: hint:" line per 80 columns. named are the folders
// given with the folder flags ("--claude-dir DIR"): when there are any,
// the hint says those hold none, not to name folders again.
func noTranscriptsHint(env *Env, cmd string, named []string) {
	msg := "no Claude Code, Codex, Gemini CLI, opencode, Copilot CLI or Goose transcripts were found; " +
		"name their folders with --claude-dir, --codex-dir, --gemini-dir, --opencode-dir, --copilot-dir or --goose-dir"
	if len(named) > 0 {
		msg = fmt.Sprintf("the %s named %s no transcripts; name the %s that %s ('mcpcost help %s' says what each flag takes): %s",
			num.Plural(len(named), "folder", "folders"), num.Plural(len(named), "holds", "hold"),
			num.Plural(len(named), "one", "ones"), num.Plural(len(named), "does", "do"), cmd, strings.Join(named, ", "))
	}
	for _, l := range wrapWidth(msg, 80-len("mcpcost: hint: ")) {
		hintf(env, "%s", l)
	}
}

// folderFlags are the folders named with the transcript folder flags, in
// the order of the flags, each with its flag ("--claude-dir DIR").
func folderFlags(claude, codex, gemini, opencode, copilot, goose []string) []string {
	var out []string
	for i, dirs := range [][]string{claude, codex, gemini, opencode, copilot, goose} {
		for _, d := range dirs {
			out = append(out, "--"+[]string{"claude", "codex", "gemini", "opencode", "copilot", "goose"}[i]+"-dir "+d)
		}
	}
	return out
}

// warnf prints "mcpcost: warning: ..." to stderr.
func warnf(env *Env, format string, a ...any) { diagnostic(env, "warning", format, a) }

// diagnostic prints one "mcpcost: KIND: ..." line. Messages quote names,
// paths and server output: the message is escaped with textsafe.Text, so
// that it stays one line and drives no terminal.
func diagnostic(env *Env, kind, format string, a []any) {
	env.endProgress()
	switch kind {
	case "error":
		env.hintOwed.Store(true)
	case "hint":
		env.hintOwed.Store(false)
	}
	head := "mcpcost: " + kind + ": "
	msg := textsafe.Text(fmt.Sprintf(format, a...))
	if !env.StderrTTY || env.ErrColumns <= 0 || render.Width(head+msg) <= env.ErrColumns {
		fmt.Fprintf(env.Stderr, "%s%s\n", head, msg)
		return
	}
	// On a terminal, lines that fit it, each one with its head (as
	// noTranscriptsHint writes them), so that none wraps mid-word.
	var b strings.Builder
	for _, l := range wrapWidth(msg, env.ErrColumns-render.Width(head)) {
		b.WriteString(head + l + "\n")
	}
	io.WriteString(env.Stderr, b.String())
}

// wrapWidth breaks s at spaces into lines of at most width columns (a
// word wider than width has a line of its own).
func wrapWidth(s string, width int) []string {
	var lines []string
	line, lw := "", 0
	for _, w := range strings.Fields(s) {
		ww := render.Width(w)
		switch {
		case line == "":
			line, lw = w, ww
		case lw+1+ww <= width:
			line, lw = line+" "+w, lw+1+ww
		default:
			lines = append(lines, line)
			line, lw = w, ww
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// usageError reports a usage problem with a hint to the command's manual
// and returns ExitError.
func usageError(env *Env, cmd, format string, a ...any) int {
	errorf(env, format, a...)
	hintf(env, "run 'mcpcost help %s' for usage", cmd)
	return ExitError
}

// A valueError is a flag's value that is none of values; flag is written
// before a suggestion ("--transport ").
type valueError struct {
	msg, flag, value string
	values           []string
}

func (e *valueError) Error() string { return e.msg }

// badValue reports msg, the error of a flag's value that is none of
// values, with the nearest value as its hint where one is close (flag is
// written before it: "--by ", "--color="), else the command's manual
// ("" for mcpcost's); it returns ExitError.
func badValue(env *Env, cmd, flag, value string, values []string, msg string) int {
	errorf(env, "%s", msg)
	manual := strings.TrimSpace("mcpcost help " + cmd)
	if near := nearest(value, values); near != "" {
		hintf(env, "did you mean %s%s? ('%s' for usage)", flag, near, manual)
	} else {
		hintf(env, "run '%s' for usage", manual)
	}
	return ExitError
}

// fail reports err and its hint, and returns ExitError.
func fail(env *Env, err error) int {
	errorf(env, "%v", err)
	if h := errorHint(err); h != "" {
		hintf(env, "%s", h)
	}
	return ExitError
}

// errorHint is what to do about err: the hint it carries, else one for
// its class (a missing file, a folder for a file, a refused connection, a
// timeout ...); "" when neither says anything, and Run then points to the
// command's manual.
func errorHint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return classHint(err)
}
