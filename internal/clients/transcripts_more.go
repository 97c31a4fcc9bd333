package clients

// Transcript folders of the agents beyond Claude Code and Codex.

import "path/filepath"

// CopilotTranscriptDirs are the folders GitHub Copilot CLI keeps its
// sessions in (session-state/ below each): each folder of $COPILOT_HOME
// (comma-separated), else ~/.copilot.
func CopilotTranscriptDirs(sys System) []string {
	if v := sys.getenv("COPILOT_HOME"); v != "" {
		return splitList(v)
	}
	if sys.Home == "" {
		return nil
	}
	return []string{filepath.Join(sys.Home, ".copilot")}
}

// GooseTranscriptDirs are the folders Goose may keep its sessions.db in:
// $GOOSE_PATH_ROOT/data/sessions when that is set, else its data folder's
// sessions/ ($XDG_DATA_HOME/goose, else ~/.local/share/goose), and the
// other places ccusage looks (~/.local/share/Block/goose, and macOS's
// ~/Library/Application Support/goose).
func GooseTranscriptDirs(sys System) []string {
	if v := sys.getenv("GOOSE_PATH_ROOT"); v != "" {
		return []string{filepath.Join(v, "data", "sessions")}
	}
	if sys.Home == "" {
		return nil
	}
	data := sys.getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(sys.Home, ".local", "share")
	}
	return []string{filepath.Join(data, "goose", "sessions"), filepath.Join(sys.Home, ".local", "share", "Block", "goose", "sessions"),
		filepath.Join(sys.Home, "Library", "Application Support", "goose", "sessions")}
}
