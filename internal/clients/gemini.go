package clients

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Gemini CLI reads, lowest precedence first: the system defaults file, the
// user ~/.gemini/settings.json, the project .gemini/settings.json and the
// system settings file (which overrides all), each with top-level
// mcpServers; a name in a higher file replaces the lower entry. The system
// files live in /etc/gemini-cli/, C:\ProgramData\gemini-cli\ or
// /Library/Application Support/GeminiCli/, moved by
// GEMINI_CLI_SYSTEM_DEFAULTS_PATH and GEMINI_CLI_SYSTEM_SETTINGS_PATH.
// Comments are allowed.
//
// Transport: httpUrl (Streamable HTTP) > url (SSE) > command (stdio).
// includeTools / excludeTools filter tools (exclude wins); mcp.allowed and
// mcp.excluded filter servers by name. $VAR and ${VAR} (and %VAR% on
// Windows) are expanded; an unset variable stays as written.
//
// Extensions: each folder of ~/.gemini/extensions holding a
// gemini-extension.json adds the servers of its mcpServers, below every
// settings file (a settings entry of the same name wins). Their strings
// substitute ${extensionPath}, ${workspacePath}, ${/} and
// ${pathSeparator} first. An extension is enabled unless the last rule of
// its "overrides" in ~/.gemini/extensions/extension-enablement.json that
// matches the project folder starts with "!" (gemini extensions disable).
//
// Folder trust (docs/cli/trusted-folders.md, packages/cli/src/config/
// trustedFolders.ts): on unless security.folderTrust.enabled is false in
// the user or system settings (on by default since 0.39.1; the project's
// own file cannot turn it off). With it on, a folder is trusted by the
// rule of ~/.gemini/trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH)
// with the longest path that covers it: TRUST_FOLDER covers the path and
// below, TRUST_PARENT the path's parent and below, DO_NOT_TRUST distrusts;
// no rule is untrusted; GEMINI_TRUST_WORKSPACE=true trusts. In a folder
// it does not trust Gemini CLI ignores the project's settings and
// connects to no MCP server at all; in a trusted one the project's
// servers start without another question.

func init() {
	register(&client{
		name:          Gemini,
		projectScopes: []string{"project"},
		title:         "Gemini CLI",
		candidates:    geminiCandidates,
		parse:         parseGemini,
		settle:        settleGemini,
	})
}

func (sys *System) geminiSystemDir() string {
	switch sys.OS {
	case "darwin":
		return "/Library/Application Support/GeminiCli"
	case "windows":
		return sys.join(sys.programData(), "gemini-cli")
	}
	return "/etc/gemini-cli"
}

func geminiCandidates(sys *System) []candidate {
	defaults := sys.getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = sys.join(sys.geminiSystemDir(), "system-defaults.json")
	}
	override := sys.getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if override == "" {
		override = sys.join(sys.geminiSystemDir(), "settings.json")
	}
	var out []candidate
	dir := sys.join(sys.Home, ".gemini", "extensions")
	if names, err := sys.FS.ReadDir(dir); err == nil {
		for _, n := range names {
			if sys.FS.IsDir(sys.join(dir, n)) {
				out = append(out, candidate{client: Gemini, scope: "extension", format: FormatJSONC,
					path: sys.join(dir, n, "gemini-extension.json")})
			}
		}
	}
	return append(out,
		candidate{client: Gemini, scope: "system-defaults", format: FormatJSONC, path: defaults},
		candidate{client: Gemini, scope: "user", format: FormatJSONC, path: sys.join(sys.Home, ".gemini", "settings.json")},
		candidate{client: Gemini, scope: "project", format: FormatJSONC, path: sys.join(sys.Cwd, ".gemini", "settings.json")},
		candidate{client: Gemini, scope: "system", format: FormatJSONC, path: override},
	)
}

func parseGemini(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Gemini, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	if top["mcpServers"] == nil {
		if unwrapped(&cfg, top, "mcpServers", "httpUrl", "url") {
			return cfg
		}
		cfg.noMCP = "no mcpServers in this settings file"
		if c.scope == "extension" {
			cfg.noMCP = "an extension without mcpServers"
		}
		return cfg
	}
	r := &entryReader{sys: sys, client: Gemini, scope: c.scope, path: c.path,
		urlKeys: []string{"httpUrl", "url"},
		types:   map[string]string{"httpUrl": HTTP, "url": SSE, "command": Stdio},
		typeOf: func(m map[string]any) string {
			for _, k := range []string{"httpUrl", "url", "command"} {
				if _, ok := m[k]; ok {
					return k
				}
			}
			return ""
		},
		expand: sys.expandGemini,
	}
	ext := ""
	if c.scope == "extension" {
		extDir := sys.dir(c.path)
		ext = sys.base(extDir)
		if n, ok := top["name"].(string); ok && n != "" {
			ext = n
		}
		r.expand = func(v string, x *expansion) string {
			return sys.expandGemini(sys.expandGeminiExtension(v, extDir), x)
		}
	}
	servers, note := r.readServerMap(top["mcpServers"], "mcpServers")
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	m, _ := top["mcpServers"].(map[string]any)
	for i := range servers {
		s := &servers[i]
		e, _ := m[s.Name].(map[string]any)
		if e == nil {
			continue
		}
		f := fields{m: e, s: s}
		include := f.strs("includeTools")
		exclude := f.strs("excludeTools")
		if len(include) > 0 || len(exclude) > 0 {
			s.Filter = &ToolFilter{AllowList: len(include) > 0, Include: include, Exclude: exclude,
				Source: "includeTools/excludeTools in " + c.path}
		}
		if f.problem != "" && s.Problem == "" {
			s.Problem = f.problem
		}
	}
	if ext != "" {
		if why := sys.geminiExtensionDisabled(ext); why != "" {
			for i := range servers {
				if !servers[i].Disabled {
					servers[i].Disabled, servers[i].DisabledBy = true, why
				}
			}
		}
	}
	cfg.Servers = servers
	return cfg
}

// expandGeminiExtension substitutes the variables of a Gemini CLI
// extension's gemini-extension.json.
func (sys *System) expandGeminiExtension(s, extDir string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return strings.NewReplacer("${extensionPath}", extDir, "${workspacePath}", sys.Cwd,
		"${/}", sys.sep(), "${pathSeparator}", sys.sep()).Replace(s)
}

// geminiExtensionDisabled says why the extension is off in the project
// folder, or "" when it is on: the last rule of its overrides in
// extension-enablement.json that matches the folder decides, a "!" rule
// disabling; a rule ending in "*" matches subfolders too.
func (sys *System) geminiExtensionDisabled(name string) string {
	path := sys.join(sys.Home, ".gemini", "extensions", "extension-enablement.json")
	data, state, _ := sys.read(path)
	if state != StateFound {
		return ""
	}
	top, _, err := readJSONTop(data, FormatJSON, path)
	if err != nil {
		return ""
	}
	e, _ := top[name].(map[string]any)
	cwd := geminiSlashes(sys.Cwd)
	enabled, decider := true, ""
	for _, rule := range strList(e["overrides"]) {
		base, disable := strings.CutPrefix(rule, "!")
		if geminiGlob(base).MatchString(cwd) {
			enabled, decider = !disable, rule
		}
	}
	if enabled {
		return ""
	}
	return fmt.Sprintf("extension %s turned off for this folder (%q in %s)", name, decider, path)
}

// geminiSlashes writes a folder as Gemini CLI's enablement rules do:
// forward slashes, a leading and a trailing one.
func geminiSlashes(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// geminiGlob turns an enablement rule into a pattern as Gemini CLI does:
// "*" (and "/*") matches anything, including nothing.
func geminiGlob(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch {
		case glob[i] == '/' && i+1 < len(glob) && glob[i+1] == '*':
			b.WriteString("(/.*)?")
			i++
		case glob[i] == '*':
			b.WriteString("(.*)?")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// geminiTrust says whether Gemini CLI's folder trust is on and, if so,
// whether it trusts the project folder, with where that was read.
func (sys *System) geminiTrust() (on, trusted bool, why string) {
	on = true
	for _, cand := range geminiCandidates(sys) {
		switch cand.scope {
		case "system-defaults", "user", "system":
		default:
			continue
		}
		data, state, _ := sys.read(cand.path)
		if state != StateFound {
			continue
		}
		top, _, err := readJSONTop(data, FormatJSONC, cand.path)
		if err != nil {
			continue
		}
		sec, _ := top["security"].(map[string]any)
		ft, _ := sec["folderTrust"].(map[string]any)
		if b, ok := ft["enabled"].(bool); ok {
			on = b // later files rank higher: system-defaults, user, system
		}
	}
	if !on {
		return false, true, ""
	}
	if sys.getenv("GEMINI_TRUST_WORKSPACE") == "true" {
		return true, true, "GEMINI_TRUST_WORKSPACE=true"
	}
	path := sys.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = sys.join(sys.Home, ".gemini", "trustedFolders.json")
	}
	data, state, err := sys.read(path)
	switch {
	case state == StateNotFound:
		return true, false, "no " + path + " records a trust decision"
	case err != nil:
		return true, false, path + " cannot be read"
	}
	top, _, err := readJSONTop(data, FormatJSONC, path)
	if err != nil {
		return true, false, path + " is not valid JSON, and Gemini CLI refuses to start with it"
	}
	want := sys.clean(sys.Cwd)
	best, level := -1, ""
	for _, rule := range sortedKeys(top) {
		lv, _ := top[rule].(string)
		if lv != "TRUST_FOLDER" && lv != "TRUST_PARENT" && lv != "DO_NOT_TRUST" {
			return true, false, fmt.Sprintf("%s gives %q an unknown trust level, and Gemini CLI refuses to start with it", path, rule)
		}
		eff := rule
		if lv == "TRUST_PARENT" {
			eff = sys.dir(rule)
		}
		eff = sys.clean(eff)
		if (want == eff || strings.HasPrefix(want, strings.TrimRight(eff, sys.seps())+sys.sep())) && len(rule) > best {
			best, level = len(rule), lv
			why = fmt.Sprintf("%s marks %s %s", path, rule, lv)
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return true, true, why
	case "DO_NOT_TRUST":
		return true, false, why
	}
	return true, false, "no rule of " + path + " covers " + sys.Cwd
}

// settleGemini applies precedence, the mcp.allowed / mcp.excluded
// server lists (the highest file that sets a list wins) and folder trust.
func settleGemini(sys *System, configs []Config) []Config {
	on, trusted, why := sys.geminiTrust()
	if on && !trusted {
		// The project's settings are not read, and no server connects.
		for i := range configs {
			for j := range configs[i].Servers {
				s := &configs[i].Servers[j]
				if !s.Disabled {
					s.Disabled = true
					s.DisabledBy = "Gemini CLI connects to no MCP server in a folder it does not trust (security.folderTrust is on, and " + why + "); trust the folder in Gemini CLI (/permissions) to load them"
				}
			}
		}
		return configs
	}
	if on {
		for i := range configs {
			if configs[i].Scope == "project" {
				configs[i].trustedBy = why
				configs[i].Notes = append(configs[i].Notes, "Gemini CLI trusts this folder ("+why+"): it starts the project's servers without asking")
			}
		}
	}
	overrideByName(configs, func(w Config) string {
		return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
	})
	var allowed, excluded *nameList
	for _, cand := range geminiCandidates(sys) {
		if cand.scope == "extension" {
			continue
		}
		data, state, _ := sys.read(cand.path)
		if state != StateFound {
			continue
		}
		top, _, err := readJSONTop(data, FormatJSONC, cand.path)
		if err != nil {
			continue
		}
		mcp, _ := top["mcp"].(map[string]any)
		for _, k := range []struct {
			v   any
			dst **nameList
			key string
		}{
			{mcp["allowed"], &allowed, "mcp.allowed"}, {top["allowMCPServers"], &allowed, "allowMCPServers"},
			{mcp["excluded"], &excluded, "mcp.excluded"}, {top["excludeMCPServers"], &excluded, "excludeMCPServers"},
		} {
			if k.v != nil {
				*k.dst = &nameList{names: strList(k.v), where: k.key + " in " + cand.path}
			}
		}
	}
	for i := range configs {
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			switch {
			case s.Disabled:
			case excluded != nil && contains(excluded.names, s.Name):
				s.Disabled, s.DisabledBy = true, "listed in "+excluded.where
			case allowed != nil && !contains(allowed.names, s.Name):
				s.Disabled, s.DisabledBy = true, "not listed in "+allowed.where
			}
		}
	}
	return configs
}

// GeminiTranscriptDirs are the folders Gemini CLI records its chats
// under (in tmp/<project>/chats/): GEMINI_DATA_DIR (a comma-separated
// list, as ccusage reads it), else ~/.gemini.
func GeminiTranscriptDirs(sys System) []string {
	if v := sys.getenv("GEMINI_DATA_DIR"); v != "" {
		return splitList(v)
	}
	if sys.Home == "" {
		return nil
	}
	return []string{filepath.Join(sys.Home, ".gemini")}
}
