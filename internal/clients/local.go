package clients

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// Local returns the System of this machine: its OS, the home folder from
// HOME (USERPROFILE on Windows, else the OS's answer), project as the
// project folder (the working folder when empty), getenv for the
// environment and the real filesystem.
func Local(getenv func(string) string, project string) (System, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	if runtime.GOOS == "windows" && getenv("USERPROFILE") != "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return System{}, errors.New("cannot tell the home folder: HOME is not set")
		}
		home = h
	}
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return System{}, err
		}
		project = wd
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return System{}, err
	}
	return System{OS: runtime.GOOS, Home: home, Cwd: abs, Getenv: getenv, FS: OSFS{}, memo: &stateMemo{}, budget: &budget{}}, nil
}
