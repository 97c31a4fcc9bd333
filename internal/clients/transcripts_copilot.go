package clients

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
