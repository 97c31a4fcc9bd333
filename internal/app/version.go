package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/sweep"
)

// VersionUnknown is the package version of a server whose installed
// package could not be read: never a guess from the command or a registry.
const VersionUnknown = "unknown"

// packageOf is the package s runs: its package:, without
// mcp-context-cost's " (PyPI)" note, else the first package argument of
// npx, bunx or uvx (its version pin dropped), else "".
func packageOf(s sweep.Server) string {
	if p := strings.TrimSpace(strings.TrimSuffix(s.Package, " (PyPI)")); p != "" {
		return p
	}
	switch filepath.Base(s.Command) {
	case "npx", "bunx", "uvx":
	default:
		return ""
	}
	for i := 0; i < len(s.Args); i++ {
		a := s.Args[i]
		if a == "--from" && i+1 < len(s.Args) {
			return stripPin(s.Args[i+1])
		}
		if a == "--with" || a == "-p" || a == "--package" || a == "--python" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return stripPin(a)
	}
	return ""
}

func stripPin(a string) string {
	if at := strings.LastIndex(a, "@"); at > 0 {
		a = a[:at]
	}
	if i := strings.IndexAny(a, "=<>~!["); i > 0 {
		a = a[:i]
	}
	return a
}

var distInfo = lazyRegexp(`^(.+)-([^-]+)\.dist-info$`)

// ResolveVersion reads the installed version of pkg: for npm, the
// package.json named pkg under the fresh HOME's npx cache or above a path
// among the arguments (node .../node_modules/pkg/dist/index.js); for uvx,
// the dist-info of pkg under the fresh HOME's uv cache. Otherwise
// VersionUnknown.
func ResolveVersion(s sweep.Server, pkg, home string) string {
	if v := npmVersion(s, pkg, home); v != "" {
		return v
	}
	if v := uvVersion(pkg, home); v != "" {
		return v
	}
	return VersionUnknown
}

func npmVersion(s sweep.Server, pkg, home string) string {
	var candidates []string
	if home != "" {
		ms, _ := filepath.Glob(filepath.Join(home, ".npm", "_npx", "*", "node_modules", filepath.FromSlash(pkg), "package.json"))
		sort.Strings(ms)
		candidates = append(candidates, ms...)
	}
	for _, a := range append([]string{s.Command}, s.Args...) {
		if !filepath.IsAbs(a) {
			continue
		}
		for d := filepath.Dir(a); ; d = filepath.Dir(d) {
			candidates = append(candidates, filepath.Join(d, "package.json"))
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	for _, c := range candidates {
		b, err := readCapped(c, 1<<20)
		if err != nil {
			continue
		}
		var p struct{ Name, Version string }
		if json.Unmarshal(b, &p) == nil && p.Name == pkg && validVersion(p.Version) {
			return p.Version
		}
	}
	return ""
}

var versionRe = lazyRegexp(`^[0-9A-Za-z.+_-]{1,64}$`)

func validVersion(v string) bool { return versionRe().MatchString(v) }

func uvVersion(pkg, home string) string {
	if home == "" {
		return ""
	}
	norm := strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(pkg))
	var ms []string
	for _, pat := range []string{
		filepath.Join(home, ".cache", "uv", "archive-v0", "*", "lib", "python*", "site-packages", "*.dist-info"),
		filepath.Join(home, ".cache", "uv", "archive-v0", "*", "Lib", "site-packages", "*.dist-info"),
	} {
		m, _ := filepath.Glob(pat)
		ms = append(ms, m...)
	}
	sort.Strings(ms)
	for _, d := range ms {
		sm := distInfo().FindStringSubmatch(filepath.Base(d))
		if sm == nil || strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(sm[1])) != norm {
			continue
		}
		// METADATA's Version: is the version; the folder name agrees.
		b, err := readCapped(filepath.Join(d, "METADATA"), 4<<20)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Version: "); ok && validVersion(strings.TrimSpace(v)) {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}
