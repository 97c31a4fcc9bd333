package clients

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
)

// What the clients keep beside their MCP configs and mcpcost reads too:
// Claude Code's settings (permission rules, the env block) and where
// Claude Code and Codex write their transcripts.

// varClaudeConfigDir moves Claude Code's configuration folder (~/.claude);
// claudeConfigVar is the one place it is read.
const varClaudeConfigDir = "CLAUDE_CONFIG_DIR"

func (sys *System) claudeConfigVar() string { return sys.getenv(varClaudeConfigDir) }

// ClaudeTranscriptDirs are the folders Claude Code keeps its transcripts
// in: each folder of $CLAUDE_CONFIG_DIR (comma-separated), else
// $XDG_CONFIG_HOME/claude (~/.config/claude) and ~/.claude.
func ClaudeTranscriptDirs(sys System) []string {
	if v := sys.claudeConfigVar(); v != "" {
		return splitList(v)
	}
	if sys.Home == "" {
		return nil
	}
	cfg := sys.getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(sys.Home, ".config")
	}
	return []string{filepath.Join(cfg, "claude"), filepath.Join(sys.Home, ".claude")}
}

// CodexTranscriptDirs are the folders Codex keeps its sessions in: each
// folder of $CODEX_HOME (comma-separated), else ~/.codex.
func CodexTranscriptDirs(sys System) []string {
	if v := sys.getenv("CODEX_HOME"); v != "" {
		return splitList(v)
	}
	if sys.Home == "" {
		return nil
	}
	return []string{filepath.Join(sys.Home, ".codex")}
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// claudeUserSettings is the user's settings.json of Claude Code.
func (sys *System) claudeUserSettings() string {
	cfg := sys.claudeConfigVar()
	if cfg == "" {
		cfg = filepath.Join(sys.Home, ".claude")
	}
	return filepath.Join(cfg, "settings.json")
}

// ClaudeOutputLimit reads MAX_MCP_OUTPUT_TOKENS as Claude Code would: from
// the env block of its settings files (the project's local and shared
// ones, then the user's), then the environment. It returns 0 when none
// sets it, and where the value was read.
func ClaudeOutputLimit(sys System) (int, string) {
	const name = "MAX_MCP_OUTPUT_TOKENS"
	for _, p := range []string{
		filepath.Join(sys.Cwd, ".claude", "settings.local.json"),
		filepath.Join(sys.Cwd, ".claude", "settings.json"),
		sys.claudeUserSettings(),
	} {
		data, err := sys.FS.ReadFile(p)
		if err != nil {
			continue
		}
		var top struct {
			Env map[string]any `json:"env"`
		}
		if json.Unmarshal(data, &top) != nil {
			continue
		}
		if v, ok := top.Env[name].(string); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n, p
			}
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(sys.getenv(name))); err == nil && n > 0 {
		return n, name + " in the environment"
	}
	return 0, ""
}

// approvals are the rules of one settings file that let tools run
// without asking.
type approvals struct {
	allow  []string
	bypass bool
}

func (sys *System) readPermissions(path string) approvals {
	data, err := sys.FS.ReadFile(path)
	if err != nil {
		return approvals{}
	}
	var top struct {
		Permissions struct {
			Allow       []string `json:"allow"`
			DefaultMode string   `json:"defaultMode"`
		} `json:"permissions"`
	}
	if json.Unmarshal(data, &top) != nil {
		return approvals{}
	}
	return approvals{allow: top.Permissions.Allow, bypass: top.Permissions.DefaultMode == "bypassPermissions"}
}

// allows matches Claude Code's MCP permission rules: mcp__server (every
// tool of the server), mcp__server__* and mcp__server__tool.
func (a approvals) allows(server, tool string) bool {
	if a.bypass {
		return true
	}
	for _, r := range a.allow {
		r = strings.TrimSpace(r)
		if r == "mcp__"+server || r == "mcp__"+server+"__*" || r == "mcp__"+server+"__"+tool {
			return true
		}
	}
	return false
}

// ClaudePreApproved reports whether Claude Code's settings (the user's,
// and a project's shared and local ones) let a tool run without asking in
// that project. source is the transcript's agent: only "claude" has such
// settings. The project files are read once each.
func ClaudePreApproved(sys System) func(source, project, server, tool string) bool {
	user := sys.readPermissions(sys.claudeUserSettings())
	perProject := map[string][2]approvals{}
	return func(source, project, server, tool string) bool {
		if source != "claude" {
			return false
		}
		if user.allows(server, tool) {
			return true
		}
		if project == "" {
			return false
		}
		p, ok := perProject[project]
		if !ok {
			p = [2]approvals{sys.readPermissions(filepath.Join(project, ".claude", "settings.json")), sys.readPermissions(filepath.Join(project, ".claude", "settings.local.json"))}
			perProject[project] = p
		}
		return p[0].allows(server, tool) || p[1].allows(server, tool)
	}
}
