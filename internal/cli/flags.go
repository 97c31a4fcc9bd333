package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// flags is a command's flag set. It accepts "--name=value" and
// "--name value" alike, flags anywhere among the arguments, and "--" to end
// the flags. Unknown flags and flags missing their value are errors.
type flags struct {
	cmd string
	fs  *flag.FlagSet
	// unknown, when set, is the hint for an unknown flag, or "" for the
	// usual one.
	unknown func(*flagError) string
}

func newFlags(cmd string) *flags {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{cmd: cmd, fs: fs}
}

func (f *flags) Bool(name string, usage string) *bool {
	return f.fs.Bool(name, false, usage)
}

func (f *flags) String(name, def, usage string) *string {
	return f.fs.String(name, def, usage)
}

func (f *flags) Int(name string, def int, usage string) *int {
	return f.fs.Int(name, def, usage)
}

// Strings registers a repeatable flag.
func (f *flags) Strings(name, usage string) *[]string {
	var v multi
	f.fs.Var(&v, name, usage)
	return (*[]string)(&v)
}

// Var registers a flag of any flag.Value.
func (f *flags) Var(v flag.Value, name, usage string) { f.fs.Var(v, name, usage) }

// Set reports whether the named flag was given.
func (f *flags) Set(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			set = true
		}
	})
	return set
}

// Parse parses args. It returns the positional arguments, and, separately,
// those after a "--" (nil when there was none).
func (f *flags) Parse(args []string) (pos, rest []string, err error) {
	all, first := args, -1
	for {
		if err := f.fs.Parse(args); err != nil {
			err = f.explain(err, args)
			var fe *flagError
			if first >= 0 && errors.As(err, &fe) {
				fe.after = all[first:]
			}
			return nil, nil, err
		}
		// flag stops at the first non-flag or at "--"; it consumes "--".
		consumed := len(args) - f.fs.NArg()
		if consumed > 0 && args[consumed-1] == "--" {
			return pos, append([]string{}, f.fs.Args()...), nil
		}
		left := f.fs.Args()
		if len(left) == 0 {
			return pos, nil, nil
		}
		if first < 0 {
			first = len(all) - len(left)
		}
		pos = append(pos, left[0])
		args = left[1:]
	}
}

// explain words a flag package error the way mcpcost's errors read; args
// are those parsed, where an unknown flag is named as it was typed.
func (f *flags) explain(err error, args []string) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		names := []string{"color", "quiet"} // every command's, taken before its own
		f.fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		e := &flagError{msg: fmt.Sprintf("unknown flag %s for %s", typed(name, args), f.cmd), flag: typed(name, args)}
		if near := nearest(name, names); near != "" {
			e.near = "--" + near
		}
		return e
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimPrefix(msg, "flag needs an argument: ")
		return fmt.Errorf("flag %s needs a value", ensureDashes(name))
	case strings.HasPrefix(msg, "invalid value "):
		// invalid value "x" for flag -n: parse error
		var val, name string
		if _, err := fmt.Sscanf(msg, "invalid value %q for flag %s", &val, &name); err == nil {
			why := strings.TrimPrefix(msg, fmt.Sprintf("invalid value %q for flag %s ", val, name))
			name = strings.TrimSuffix(name, ":")
			return fmt.Errorf("flag %s: %q%s", ensureDashes(name), val, f.valueWords(strings.TrimLeft(name, "-"), why))
		}
		return errors.New(strings.Replace(msg, "flag -", "flag --", 1))
	case strings.HasPrefix(msg, "invalid boolean value"):
		return errors.New(strings.Replace(msg, "flag -", "flag --", 1))
	}
	return err
}

// valueWords says what is wrong with a flag's value, given the flag
// package's reason: a value type's own words, else the kind of value the
// flag takes.
func (f *flags) valueWords(name, why string) string {
	if why != "parse error" && why != "value out of range" {
		return ": " + why
	}
	if why == "value out of range" {
		return " is out of range"
	}
	var v any
	if fl := f.fs.Lookup(name); fl != nil {
		if g, ok := fl.Value.(flag.Getter); ok {
			v = g.Get()
		}
	}
	switch v.(type) {
	case time.Duration:
		return " is not a duration: give it with its unit, such as 90s, 3m or 48h"
	case int, int64, uint, uint64:
		return " is not a whole number"
	case float64:
		return " is not a number"
	}
	return " is not a valid value"
}

// typed is the flag name as args spell it ("-x" or "--x"), "--name" when
// none does.
func typed(name string, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		lead, _, _ := strings.Cut(a, "=")
		if d := strings.TrimLeft(lead, "-"); d == name && len(lead)-len(d) <= 2 && len(d) < len(lead) {
			return lead
		}
	}
	return "--" + name
}

func ensureDashes(name string) string {
	name = strings.TrimLeft(name, "-")
	return "--" + name
}

// parseOrUsage parses args and on error prints it with a hint and returns
// ok=false.
func (f *flags) parseOrUsage(env *Env, args []string) (pos, rest []string, ok bool) {
	if env.implicit {
		if i := f.commandWord(args); i >= 0 {
			env.named = append([]string{args[i]}, slices.Delete(slices.Clone(args), i, i+1)...)
			return nil, nil, false
		}
	}
	pos, rest, err := f.Parse(args)
	if err != nil {
		var fe *flagError
		if errors.As(err, &fe) && f.unknown != nil {
			if h := f.unknown(fe); h != "" {
				errorf(env, "%v", err)
				hintf(env, "%s", h)
				return nil, nil, false
			}
		}
		if errors.As(err, &fe) && fe.near != "" {
			errorf(env, "%v", err)
			hintf(env, "did you mean %s? ('mcpcost help %s' for usage)", fe.near, f.cmd)
			return nil, nil, false
		}
		usageError(env, f.cmd, "%v", err)
		return nil, nil, false
	}
	return pos, rest, true
}

// commandWord is the index in args of a command's name written after
// flags meant for it ("mcpcost --json usage", "mcpcost --quite version"),
// or -1: the first word before any "--" that is neither a flag nor the
// value of one of f's flags that takes a value (nor, when the word after
// it is a command's name, the value of a flag f does not know), when it
// names a command other than f's own.
func (f *flags) commandWord(args []string) int {
	isCommand := func(a string) bool {
		c, ok := commands[a]
		return ok && a != f.cmd && !c.Hidden
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return -1
		}
		if len(a) < 2 || a[0] != '-' {
			// A word close to a command's name is a mistyped one, told
			// as such by Run (the default command takes no word).
			if isCommand(a) || nearest(a, commandNames()) != "" {
				return i
			}
			return -1
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if hasValue || i+1 >= len(args) {
			continue
		}
		fl := f.fs.Lookup(name)
		switch {
		case fl != nil && !isBoolFlag(fl):
			i++ // its value
		case fl == nil && !strings.HasPrefix(args[i+1], "-") && !isCommand(args[i+1]) && i+2 < len(args) && isCommand(args[i+2]):
			i++ // perhaps its value
		}
	}
	return -1
}

// commandNames are the names of the commands help lists.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	return names
}

func isBoolFlag(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// A flagError is an unknown flag, with the command's nearest flag when one
// is close.
type flagError struct {
	msg   string
	near  string
	flag  string   // the flag as typed ("-y", "--name")
	after []string // the arguments from the first positional one on, if one came before the flag
}

func (e *flagError) Error() string { return e.msg }

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }
