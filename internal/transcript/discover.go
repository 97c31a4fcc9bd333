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
	// Listed says that Size and ModTime (Unix nanoseconds) are the file's
	// as the listing found them (its links followed), so that they need
	// not be asked again; it is unset where a listing does not say.
	Listed  bool  `json:"-"`
	Size    int64 `json:"-"`
	ModTime int64 `json:"-"`
}

// listed returns f with the size and time fi gives.
func (f File) listed(fi fs.FileInfo) File {
	f.Listed, f.Size, f.ModTime = true, fi.Size(), fi.ModTime().UnixNano()
	return f
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
	case Copilot:
		p := &CopilotParser{}
		if len(state) > 0 {
			if err := json.Unmarshal(state, &p.State); err != nil {
				return nil, errors.New("bad saved reader state")
			}
		}
		p.State.SessionID = f.SessionID
		return p, nil
	case Goose:
		return &GooseParser{}, nil
	case Gemini:
		return &GeminiParser{SessionID: f.SessionID}, nil
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
	if c, ok := p.(*CopilotParser); ok {
		b, _ := json.Marshal(c.State)
		return b
	}
	return nil
}

// ClaudeDepth bounds the walk of a Claude Code projects folder: a
// transcript is at most this many names below it, as in
// <project>/<session>/subagents/workflows/<workflow>/<agent>.jsonl, the
// deepest of Claude Code's layouts.
const ClaudeDepth = 6

// CodexDepth bounds the walk of a Codex sessions folder: YYYY/MM/DD/
// rollout-*.jsonl.
const CodexDepth = 4

// DiscoverClaude lists the transcripts under Claude Code project roots
// (folders like ~/.claude/projects): <project>/<session>.jsonl,
// <project>/<session>/subagents/**/<agent>.jsonl (at most ClaudeDepth
// names below the root), and the older <project>/agent-<id>.jsonl. In a
// session's folder only subagents/ is entered: spilled tool outputs
// (tool-results/) and anything else are not transcripts. Roots that do
// not exist are skipped; links to folders and files are followed, each
// file listed once, but never into a pseudo file system (/proc, /sys,
// /dev), which is reported.
func DiscoverClaude(roots []string) ([]File, error) {
	var files []File
	enter := func(depth int, name string) bool {
		// depth is the folder's, below the root: 1 a project, 2 a session.
		return depth < ClaudeDepth && (depth != 3 || name == "subagents") && name != "tool-results"
	}
	err := walkRoots(roots, enter, func(root, path string, fi fs.FileInfo) {
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
		files = append(files, f.listed(fi))
	})
	return files, err
}

// DiscoverCodex lists the rollout files under Codex session roots (folders
// like ~/.codex/sessions, laid out by date: only folders named by digits
// are entered, at most CodexDepth names below the root), following links
// as DiscoverClaude does.
func DiscoverCodex(roots []string) ([]File, error) {
	var files []File
	enter := func(depth int, name string) bool {
		return depth < CodexDepth && strings.Trim(name, "0123456789") == ""
	}
	err := walkRoots(roots, enter, func(root, path string, fi fs.FileInfo) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		id := name
		// rollout-YYYY-MM-DDThh-mm-ss-<uuid>: the uuid is the session id.
		if len(name) > 36 && strings.HasPrefix(name, "rollout-") {
			id = name[len(name)-36:]
		}
		files = append(files, File{Path: path, Source: Codex, SessionID: id}.listed(fi))
	})
	return files, err
}

// CopilotDepth bounds the walk of a Copilot CLI session-state folder:
// <session-id>/events.jsonl.
const CopilotDepth = 2

// DiscoverCopilot lists the events.jsonl files under Copilot CLI
// session-state roots (folders like ~/.copilot/session-state): one folder
// per session, named by its id, following links as DiscoverClaude does.
// Other files, and files at other depths, are not sessions' (ccusage 20
// reads only these).
func DiscoverCopilot(roots []string) ([]File, error) {
	var files []File
	enter := func(depth int, name string) bool { return depth < CopilotDepth }
	err := walkRoots(roots, enter, func(root, path string, fi fs.FileInfo) {
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) != 2 || parts[1] != "events.jsonl" {
			return
		}
		files = append(files, File{Path: path, Source: Copilot, SessionID: parts[0]}.listed(fi))
	})
	return files, err
}

// GeminiDepth bounds the walk of a Gemini CLI folder (~/.gemini):
// tmp/<project>/chats/<session>/<file>.jsonl.
const GeminiDepth = 5

// DiscoverGemini lists the chat files under Gemini CLI folders (like
// ~/.gemini, or $GEMINI_DATA_DIR): tmp/<project>/chats/*.json and
// *.jsonl, and chats/<session>/*.jsonl, following links as
// DiscoverClaude does. Only tmp/ is entered at the top, and in a project
// only chats/ (logs.json and checkpoints, which hold no usage, are left).
func DiscoverGemini(roots []string) ([]File, error) {
	var files []File
	enter := func(depth int, name string) bool {
		switch depth {
		case 1:
			return name == "tmp"
		case 3:
			return name == "chats"
		}
		return depth < GeminiDepth
	}
	match := func(name string) bool { return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl") }
	err := walkRootsFor(roots, enter, match, func(root, path string, fi fs.FileInfo) {
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) < 4 || parts[2] != "chats" {
			return
		}
		files = append(files, File{Path: path, Source: Gemini, SessionID: GeminiSession(path)}.listed(fi))
	})
	return files, err
}

// walkRoots lists the .jsonl files under roots, following symbolic links
// to folders and files as Claude Code and Codex do (a projects folder, a
// project or a transcript may each be a link). A visited set of the
// folders and files met (device and inode) stops link loops and lists a
// file reached twice (by two links, or under two roots) once, under the
// first path met. Links that lead nowhere are skipped; those named like a
// transcript are reported. enter says whether to go into a folder of this
// name at this depth below its root (1 for the root's own folders).
func walkRoots(roots []string, enter func(depth int, name string) bool, add func(root, path string, fi fs.FileInfo)) error {
	return walkRootsFor(roots, enter, nil, add)
}

// walkRootsFor is walkRoots for the files whose names want accepts (nil:
// .jsonl files).
func walkRootsFor(roots []string, enter func(depth int, name string) bool, want func(name string) bool, add func(root, path string, fi fs.FileInfo)) error {
	if want == nil {
		want = func(name string) bool { return strings.HasSuffix(name, ".jsonl") }
	}
	w := &walker{seen: map[fileKey]bool{}, add: add, enter: enter, want: want}
	for _, root := range roots {
		// Paths are stored: the same file must always have the same name.
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
		fi, err := os.Stat(root)
		switch {
		case err == nil && !fi.IsDir():
			w.errs = append(w.errs, fmt.Errorf("%s: not a folder (%s), not read", root, kind(fi.Mode())))
			continue
		case err != nil:
			// A root that does not exist is no agent's; one below a file
			// (CLAUDE_CONFIG_DIR naming a file) or that cannot be read is
			// said.
			if at, afi := fileAbove(root); afi != nil {
				w.errs = append(w.errs, fmt.Errorf("%s: not a folder (%s), not read", at, kind(afi.Mode())))
			} else if !errors.Is(err, fs.ErrNotExist) {
				w.errs = append(w.errs, err)
			}
			continue
		}
		if pseudoFS(root, true) {
			w.errs = append(w.errs, fmt.Errorf("%s: a system folder (/proc, /sys, /dev), not read", root))
			continue
		}
		w.dir(root, root, fi, 0)
	}
	return errors.Join(w.errs...)
}

type walker struct {
	seen  map[fileKey]bool
	errs  []error
	add   func(root, path string, fi fs.FileInfo)
	enter func(depth int, name string) bool
	want  func(name string) bool
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

func (w *walker) dir(root, path string, fi fs.FileInfo, depth int) {
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
		isJSONL := w.want(e.Name())
		var info fs.FileInfo
		link := e.Type()&fs.ModeSymlink != 0
		if e.IsDir() && !w.enter(depth+1, e.Name()) {
			continue
		}
		if link {
			if info, err = os.Stat(p); err != nil {
				if isJSONL {
					w.errs = append(w.errs, fmt.Errorf("%s: a link that leads nowhere: %w", p, errors.Unwrap(err)))
				}
				continue
			}
			if isJSONL && !info.IsDir() {
				// Never opened: a device or a pipe could block or never
				// end, and a system folder's files are no transcripts.
				switch {
				case systemFolder(p) || pseudoFSType(p):
					w.errs = append(w.errs, fmt.Errorf("%s: a link into a system folder (/proc, /sys, /dev), not read", p))
					continue
				case !info.Mode().IsRegular():
					w.errs = append(w.errs, fmt.Errorf("%s: a link to %s, not read", p, kind(info.Mode())))
					continue
				}
			}
		} else if e.IsDir() || (e.Type().IsRegular() && isJSONL) {
			if info, err = e.Info(); err != nil {
				continue // gone since the listing
			}
		} else {
			if isJSONL {
				w.errs = append(w.errs, fmt.Errorf("%s: not a regular file (%s), not read", p, kind(e.Type())))
			}
			continue
		}
		switch {
		case info.IsDir():
			if !w.enter(depth+1, e.Name()) {
				continue
			}
			// A folder here, on its parent's file system, is on no
			// pseudo file system: its parent was checked.
			if (link || !sameDevice(info, fi)) && pseudoFS(p, link) {
				if link {
					w.errs = append(w.errs, fmt.Errorf("%s: a link into a system folder (/proc, /sys, /dev), not followed", p))
				}
				continue
			}
			w.dir(root, p, info, depth+1)
		case info.Mode().IsRegular() && isJSONL:
			if w.visit(p, info) {
				w.add(root, p, info)
			}
		}
	}
}

// kind names a file's type, for the reports of what is not read: "a
// named pipe", "a socket", "a device", "a file" (regular) or "a special
// file".
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a file"
	}
	return "a special file"
}

// fileAbove returns the nearest of path's parents that exists, with its
// information, when it is not a folder (nil otherwise): what makes a root
// below it impossible.
func fileAbove(path string) (string, fs.FileInfo) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			if fi.IsDir() {
				return "", nil
			}
			return d, fi
		}
		if d == filepath.Dir(d) {
			return "", nil
		}
	}
}

// pseudoFS reports whether the folder at path is on a pseudo file system
// (where the system can tell) or, when resolve, whether it is, its links
// resolved, under /proc, /sys or /dev.
func pseudoFS(path string, resolve bool) bool {
	return pseudoFSType(path) || (resolve && systemFolder(path))
}

// systemFolder reports whether path, its links resolved, is /proc, /sys
// or /dev or under one of them.
func systemFolder(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	real = filepath.ToSlash(real)
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if real == d || strings.HasPrefix(real, d+"/") {
			return true
		}
	}
	return false
}
