package transcript

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A File is one transcript file and what its path says about it.
type File struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
	// SessionID is the session named by the path (empty when only the
	// lines can say, as in Claude Code's older agent-<id>.jsonl files).
	SessionID string `json:"sessionId,omitempty"`
	// AgentID is the sub-agent named by the path.
	AgentID string `json:"agentId,omitempty"`
}

// NewParser returns the parser for f, resuming from state (as saved from
// a CodexParser's State; nil to start at the top of the file).
func NewParser(f File, state []byte) (Parser, error) {
	switch f.Source {
	case Claude:
		return &ClaudeParser{SessionID: f.SessionID, AgentID: f.AgentID}, nil
	case Codex:
		p := &CodexParser{}
		if len(state) > 0 {
			if err := json.Unmarshal(state, &p.State); err != nil {
				return nil, errors.New("bad saved reader state")
			}
		}
		if p.State.SessionID == "" {
			p.State.SessionID = f.SessionID
		}
		return p, nil
	}
	return nil, errors.New("unknown transcript source " + string(f.Source))
}

// SaveState returns the state to resume parsing after the lines p has read,
// or nil when the parser keeps none.
func SaveState(p Parser) []byte {
	if c, ok := p.(*CodexParser); ok {
		b, _ := json.Marshal(c.State)
		return b
	}
	return nil
}

// DiscoverClaude lists the transcripts under Claude Code project roots
// (folders like ~/.claude/projects): <project>/<session>.jsonl,
// <project>/<session>/subagents/**/<agent>.jsonl, and the older
// <project>/agent-<id>.jsonl. Spilled tool outputs (tool-results/) are not
// transcripts. Roots that do not exist are skipped.
func DiscoverClaude(roots []string) ([]File, error) {
	var files []File
	err := walkRoots(roots, func(root, path string) {
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		name := strings.TrimSuffix(parts[len(parts)-1], ".jsonl")
		f := File{Path: path, Source: Claude, SessionID: name}
		switch {
		case len(parts) == 2 && strings.HasPrefix(name, "agent-"):
			f.SessionID, f.AgentID = "", name
		case len(parts) >= 4 && parts[2] == "subagents":
			f.SessionID, f.AgentID = parts[1], name
		}
		files = append(files, f)
	})
	return files, err
}

// DiscoverCodex lists the rollout files under Codex session roots (folders
// like ~/.codex/sessions, laid out by date).
func DiscoverCodex(roots []string) ([]File, error) {
	var files []File
	err := walkRoots(roots, func(root, path string) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		id := name
		// rollout-YYYY-MM-DDThh-mm-ss-<uuid>: the uuid is the session id.
		if len(name) > 36 && strings.HasPrefix(name, "rollout-") {
			id = name[len(name)-36:]
		}
		files = append(files, File{Path: path, Source: Codex, SessionID: id})
	})
	return files, err
}

func walkRoots(roots []string, add func(root, path string)) error {
	seen := map[string]bool{}
	var errs []error
	for _, root := range roots {
		// Paths are stored: the same file must always have the same name.
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root {
					return err
				}
				errs = append(errs, err)
				return nil
			}
			if d.IsDir() {
				if d.Name() == "tool-results" {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".jsonl") {
				return nil
			}
			if !seen[path] {
				seen[path] = true
				add(root, path)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SortFiles orders files by path, for stable output.
func SortFiles(files []File) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
}
