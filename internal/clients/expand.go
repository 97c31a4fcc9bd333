package clients

import (
	"errors"
	"strings"
)

// Variable expansion, one syntax per client, applied exactly where each
// client applies it. Expanded values are used to launch and never shown:
// Display shows the entry as written.

var dollarBrace = lazyRegexp(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// expandShell expands ${VAR} and ${VAR:-default} as Claude Code does in
// .mcp.json and ~/.claude.json entries: an unset variable with a default
// takes the default; one without stays as the literal text and is
// recorded as unset.
func (sys *System) expandShell(s string, x *expansion) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return dollarBrace().ReplaceAllStringFunc(s, func(m string) string {
		sub := dollarBrace().FindStringSubmatch(m)
		if v, ok := sys.lookupEnv(sub[1]); ok {
			return v
		}
		if strings.Contains(m, ":-") {
			return sub[2]
		}
		x.addUnset(sub[1])
		return m
	})
}

var editorVar = lazyRegexp(`\$\{([^{}]+)\}`)

// expandEditor expands the predefined variables of VS Code and Cursor:
// ${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename},
// ${pathSeparator} and ${/}. ${input:id} cannot be resolved offline: it is
// recorded as needed input and left as written. An unset ${env:NAME}
// becomes empty, as in VS Code, and is recorded as unset. Other variables
// are left as written.
func (sys *System) expandEditor(s string, x *expansion, inputs bool) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return editorVar().ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		switch {
		case strings.HasPrefix(name, "env:"):
			v := sys.getenv(name[4:])
			if v == "" {
				x.addUnset(name[4:])
			}
			return v
		case inputs && strings.HasPrefix(name, "input:"):
			x.addNeeds(name)
			return m
		case name == "userHome":
			return sys.Home
		case name == "workspaceFolder" || name == "workspaceRoot":
			return sys.Cwd
		case name == "workspaceFolderBasename":
			return sys.base(sys.Cwd)
		case name == "pathSeparator" || name == "/":
			return sys.sep()
		}
		return m
	})
}

var geminiVar = lazyRegexp(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)
var percentVar = lazyRegexp(`%([A-Za-z_][A-Za-z0-9_]*)%`)

// expandGemini expands $VAR and ${VAR} (and %VAR% on Windows) as Gemini
// CLI does in its settings; an unset variable stays as written.
func (sys *System) expandGemini(s string, x *expansion) string {
	if strings.Contains(s, "$") {
		s = geminiVar().ReplaceAllStringFunc(s, func(m string) string {
			sub := geminiVar().FindStringSubmatch(m)
			name := sub[1] + sub[2]
			if v, ok := sys.lookupEnv(name); ok {
				return v
			}
			x.addUnset(name)
			return m
		})
	}
	if sys.OS == "windows" && strings.Contains(s, "%") {
		s = percentVar().ReplaceAllStringFunc(s, func(m string) string {
			name := m[1 : len(m)-1]
			if v, ok := sys.lookupEnv(name); ok {
				return v
			}
			x.addUnset(name)
			return m
		})
	}
	return s
}

var continueSecret = lazyRegexp(`\$\{\{\s*((?:secrets|inputs)\.[^}\s]+)\s*\}\}`)

// expandContinue records Continue's ${{ secrets.NAME }} and
// ${{ inputs.NAME }} as needed input: they resolve from Continue's own
// secret store, not from the environment.
func (sys *System) expandContinue(s string, x *expansion) string {
	for _, m := range continueSecret().FindAllStringSubmatch(s, -1) {
		x.addNeeds(m[1])
	}
	return s
}

var shellVar = lazyRegexp(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))`)

// expandCopilot expands $VAR, ${VAR} and ${VAR:-default} as Copilot CLI
// does (since 1.0.10) in the command, args, env, url and headers of its
// server entries: an unset variable with a default takes the default; one
// without stays as written and is recorded as unset.
func (sys *System) expandCopilot(s string, x *expansion) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return shellVar().ReplaceAllStringFunc(s, func(m string) string {
		sub := shellVar().FindStringSubmatch(m)
		name := sub[1] + sub[3]
		if v, ok := sys.lookupEnv(name); ok {
			return v
		}
		if sub[2] != "" {
			return sub[2][2:]
		}
		x.addUnset(name)
		return m
	})
}

var errRelativeFile = errors.New("a relative path")

var windsurfVar = lazyRegexp(`\$\{(env|file):([^{}]+)\}`)

// expandWindsurf expands Windsurf's ${env:NAME} and ${file:PATH} (the
// file's contents, a trailing newline dropped; PATH absolute or under ~/:
// where Windsurf resolves a relative one is not on record, so it is left
// unresolved) in the command, args, env, serverUrl and headers of an
// entry. An unset variable or unreadable file stays as
// written and is recorded as unset (the file as "file:PATH"). A plain
// ${NAME} is not expanded.
func (sys *System) expandWindsurf(s string, x *expansion) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return windsurfVar().ReplaceAllStringFunc(s, func(m string) string {
		sub := windsurfVar().FindStringSubmatch(m)
		if sub[1] == "env" {
			if v, ok := sys.lookupEnv(sub[2]); ok {
				return v
			}
			x.addUnset(sub[2])
			return m
		}
		p := sub[2]
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			p = sys.join(sys.Home, rest)
		}
		var data []byte
		err := errRelativeFile
		if sys.isAbs(p) {
			data, err = sys.readMax(p, MaxConfigSize)
		}
		if err != nil {
			x.addUnset("file:" + sub[2])
			return m
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	})
}
