package cli

import (
	"errors"
	"os"

	"github.com/mcpcost/mcpcost/internal/app"
)

// machine is mcpcost on this machine as a command sees it: its
// environment and clock, flags spelled with "--", warnings on stderr.
func machine(env *Env) *app.Machine {
	return &app.Machine{
		Version:    Version(),
		Getenv:     env.Getenv,
		Now:        env.Now,
		FlagPrefix: "--",
		Warn:       func(msg string) { warnf(env, "%s", msg) },
	}
}

// failCall reports the error of a call into app: an option given wrong is
// a usage error of cmd.
func failCall(env *Env, cmd string, err error) int {
	var oe *app.OptionError
	if errors.As(err, &oe) {
		if oe.Values != nil {
			return badValue(env, cmd, oe.Flag+" ", oe.Value, oe.Values, err.Error())
		}
		return usageError(env, cmd, "%v", err)
	}
	return fail(env, err)
}

// withHint attaches a hint to err, printed by fail on its own line.
func withHint(err error, hint string) error { return app.WithHint(err, hint) }

// isDir reports whether p is a folder.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
