package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
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
// transcripts. Roots that do not exist are skipped; links to folders and
// files are followed, each file listed once.
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
// like ~/.codex/sessions, laid out by date), following links as
// DiscoverClaude does.
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

// walkRoots lists the .jsonl files under roots, following symbolic links
// to folders and files as Claude Code and Codex do (a projects folder, a
// project or a transcript may each be a link). A visited set of the
// folders and files met (device and inode) stops link loops and lists a
// file reached twice (by two links, or under two roots) once, under the
// first path met. Links that lead nowhere are skipped; those named like a
// transcript are reported.
func walkRoots(roots []string, add func(root, path string)) error {
	w := &walker{seen: map[fileKey]bool{}, add: add}
	for _, root := range roots {
		// Paths are stored: the same file must always have the same name.
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
		fi, err := os.Stat(root)
		if err != nil || !fi.IsDir() {
			continue
		}
		w.dir(root, root, fi)
	}
	return errors.Join(w.errs...)
}

type walker struct {
	seen map[fileKey]bool
	errs []error
	add  func(root, path string)
}

// visit reports whether the file or folder fi, found at path, is met for
// the first time.
func (w *walker) visit(path string, fi fs.FileInfo) bool {
	k := keyOf(path, fi)
	if w.seen[k] {
		return false
	}
	w.seen[k] = true
	return true
}

func (w *walker) dir(root, path string, fi fs.FileInfo) {
	if !w.visit(path, fi) {
		return
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		w.errs = append(w.errs, err)
		return
	}
	// A file that is here, rather than linked to, keeps its own name.
	sort.SliceStable(entries, func(a, b int) bool {
		return entries[a].Type()&fs.ModeSymlink == 0 && entries[b].Type()&fs.ModeSymlink != 0
	})
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		isJSONL := strings.HasSuffix(e.Name(), ".jsonl")
		var info fs.FileInfo
		if e.Type()&fs.ModeSymlink != 0 {
			if info, err = os.Stat(p); err != nil {
				if isJSONL {
					w.errs = append(w.errs, fmt.Errorf("%s: a link that leads nowhere: %w", p, errors.Unwrap(err)))
				}
				continue
			}
		} else if e.IsDir() || (e.Type().IsRegular() && isJSONL) {
			if info, err = e.Info(); err != nil {
				continue // gone since the listing
			}
		} else {
			continue
		}
		switch {
		case info.IsDir():
			if e.Name() != "tool-results" {
				w.dir(root, p, info)
			}
		case info.Mode().IsRegular() && isJSONL:
			if w.visit(p, info) {
				w.add(root, p)
			}
		}
	}
}
