package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/render"
)

// colorModes are the values of the global --color flag.
var colorModes = []string{"auto", "always", "never"}

// globalFlags takes the flags every command has out of args, wherever they
// stand before a "--": --color=auto|always|never (or --color MODE) and
// --quiet (-q).
func globalFlags(env *Env, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if a == "--quiet" || a == "-quiet" || a == "-q" {
			env.Quiet = true
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if name != "--color" && name != "-color" {
			out = append(out, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("--color needs a value: auto, always or never")
			}
			i++
			value = args[i]
		}
		switch value {
		case "auto", "always", "never":
			env.Color = value
		default:
			return nil, &valueError{fmt.Sprintf("--color must be one of %s, not %q", strings.Join(colorModes, ", "), value), "--color=", value, colorModes}
		}
	}
	return out, nil
}

// Screen is what text output is fitted to: stdout's width (a terminal's
// own, else $COLUMNS, else 80 columns) and whether it is in colour (on a
// terminal only, never with NO_COLOR set or TERM=dumb, unless
// --color=always; never with --color=never).
func (e *Env) Screen() render.Screen {
	width := 0
	if e.StdoutTTY {
		width = e.Columns
	}
	if width <= 0 {
		if n, err := strconv.Atoi(strings.TrimSpace(e.getenv("COLUMNS"))); err == nil && n > 0 {
			width = n
		}
	}
	if width <= 0 {
		width = 80
	}
	var color bool
	switch e.Color {
	case "always":
		color = true
	case "never":
		color = false
	default:
		color = e.StdoutTTY && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
	}
	return render.Screen{Width: width, Color: color}
}

func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// terminalColumns is the width of the terminal w is, or 0.
func terminalColumns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return 0
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	cols := 0
	if err := rc.Control(func(fd uintptr) { cols = terminalColumnsFd(fd) }); err != nil {
		return 0
	}
	return cols
}
