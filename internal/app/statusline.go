package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// StatuslineBudget is the longest [Machine.Statusline] takes: Claude Code
// redraws its status line at most every 300 ms.
const StatuslineBudget = 250 * time.Millisecond

// StatuslineOptions configure [Machine.Statusline].
type StatuslineOptions struct {
	// Input is Claude Code's statusLine JSON.
	Input usage.StatusInput
	// TZ names the zone of "today"; "" for the local one.
	TZ string
	// Budget bounds the time taken; 0 for StatuslineBudget.
	Budget time.Duration
}

// Statusline gathers what the status line of o.Input's session shows,
// without launching anything or writing anything: the usage store opened
// read-only as it is (the last ingest's figures), the measurement cache
// only, each within o.Budget. A part that does not answer in time, or
// cannot (no store, no cache), is left out; the line is never an error.
func (m *Machine) Statusline(ctx context.Context, o StatuslineOptions) *usage.StatusLine {
	budget := o.Budget
	if budget <= 0 {
		budget = StatuslineBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	now := m.now()
	in := o.Input
	out := &usage.StatusLine{Model: in.Model.DisplayName, SessionCost: in.Cost.TotalCostUSD, Now: now,
		ContextWindow: in.ContextWindow.ContextWindowSize}
	if out.Model == "" {
		out.Model = in.Model.ID
	}
	var mu sync.Mutex // guards out while the parts fill it
	var wg sync.WaitGroup
	done := map[string]bool{}
	wg.Add(2)
	go func() {
		defer wg.Done()
		m.statusStore(ctx, in, o.TZ, now, out, &mu)
		mu.Lock()
		done["store"] = true
		mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		m.statusDefinitions(ctx, in, out, &mu)
		mu.Lock()
		done["definitions"] = true
		mu.Unlock()
	}()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	line := *out
	for _, part := range []string{"store", "definitions"} {
		if !done[part] {
			line.Late = append(line.Late, part)
		}
	}
	if line.Block != nil {
		b := *line.Block
		line.Block = &b
	}
	return &line
}

// statusStore fills in today's cost, the active block and the session's
// MCP result tokens: from the store's memo when the store is unchanged
// since it was written and it has not run out (see storeMemo), else from
// the store, opened read-only, whose answer is then kept in the memo.
func (m *Machine) statusStore(ctx context.Context, in usage.StatusInput, tz string, now time.Time, out *usage.StatusLine, mu *sync.Mutex) {
	path, err := m.StorePath()
	if err != nil {
		return
	}
	loc, err := m.location(nil, tz)
	if err != nil {
		loc = time.UTC
	}
	// The store's stamps are taken before it is read: a write after them
	// makes the memo stale, never one that holds older figures.
	key := storeMemo{Version: m.version(), Store: path, Session: in.SessionID, Zone: loc.String(), Stamps: storeStamps(path)}
	memo := ""
	if cacheDir, err := m.cacheDir(); err == nil && key.Stamps[0] != "" {
		memo = storeMemoPath(cacheDir, key)
		if d, ok := readStoreMemo(memo, key, now); ok {
			mu.Lock()
			d.fill(out)
			mu.Unlock()
			return
		}
	}
	st, _, err := m.openStore(ctx, StoreOptions{NoIngest: true, Local: true})
	if err != nil {
		return
	}
	defer st.Close()
	d := key
	d.At = now
	whole := true
	if b, err := usage.ActiveBlock(ctx, st, usage.BlocksOptions{Now: now}); err == nil {
		mu.Lock()
		out.Block, out.BlockChecked = b, true
		mu.Unlock()
		d.BlockChecked = true
		if b != nil {
			end, last := b.EndTime, *b.ActualEndTime
			d.BlockEnd, d.BlockLast, d.BlockCost = &end, &last, b.CostUSD
		}
	} else {
		whole = false
	}
	if in.SessionID != "" {
		if tools, err := st.SessionTools(ctx, "claude", in.SessionID); err == nil && len(tools) > 0 {
			var n int64
			for _, t := range tools {
				if t.Server != "" {
					n += t.ResultTokens
				}
			}
			mu.Lock()
			out.MCPResultTokens = &n
			mu.Unlock()
			d.MCPResultTokens = &n
		} else if err != nil {
			whole = false
		}
	}
	t := now.In(loc)
	today := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	if rep, err := usage.Build(ctx, st, usage.Options{By: "model", Since: today, Location: loc, Now: now}); err == nil && rep.Totals.Cost != nil {
		mu.Lock()
		out.Today, out.TodayPartial = rep.Totals.Cost, rep.Totals.CostPartial
		mu.Unlock()
		d.Today, d.TodayPartial = rep.Totals.Cost, rep.Totals.CostPartial
	} else if err != nil {
		whole = false
	}
	if whole && memo != "" && ctx.Err() == nil {
		d.Until = d.until(time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc))
		writeStoreMemo(memo, d)
	}
}

// storeStamps are the stamps of the store at path and of its write-ahead
// log; an empty log, which a reader may create, is as none.
func storeStamps(path string) []string {
	wal := ""
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		wal = stamp(path + "-wal")
	}
	return []string{stamp(path), wal}
}

// cacheDir is the measurement cache's folder.
func (m *Machine) cacheDir() (string, error) {
	if m.CacheDir != "" {
		return m.CacheDir, nil
	}
	return audit.DefaultCacheDir(m.getenv)
}

// storeMemo is the store's part of the status line of one session, kept
// beside the definitions' memo so that a redraw reads one small file and
// not the store: what it was worked out from (this build, the store and
// the stamps of its file and write-ahead log, the session, the zone of
// "today") and until when it holds without a write to the store (the end
// of the day, the active block's end or lapse, statusMemoAge at most).
type storeMemo struct {
	Version, Store, Session, Zone string
	Stamps                        []string
	At, Until                     time.Time

	Today               *float64
	TodayPartial        bool
	BlockChecked        bool
	BlockEnd, BlockLast *time.Time
	BlockCost           float64
	MCPResultTokens     *int64
}

// until is when the memo runs out: the first of midnight, the active
// block's end and the moment it lapses (a block length after its last
// request), and statusMemoAge after it was made.
func (d *storeMemo) until(midnight time.Time) time.Time {
	u := d.At.Add(statusMemoAge)
	if midnight.Before(u) {
		u = midnight
	}
	if d.BlockEnd != nil && d.BlockEnd.Before(u) {
		u = *d.BlockEnd
	}
	if d.BlockLast != nil && d.BlockLast.Add(usage.BlockLength).Before(u) {
		u = d.BlockLast.Add(usage.BlockLength)
	}
	return u
}

// fill puts the memo's figures into out.
func (d *storeMemo) fill(out *usage.StatusLine) {
	out.Today, out.TodayPartial, out.BlockChecked, out.MCPResultTokens = d.Today, d.TodayPartial, d.BlockChecked, d.MCPResultTokens
	if d.BlockEnd != nil {
		last := *d.BlockLast
		out.Block = &usage.Block{EndTime: *d.BlockEnd, ActualEndTime: &last, CostUSD: d.BlockCost, IsActive: true}
	}
}

func storeMemoPath(cacheDir string, key storeMemo) string {
	h := sha256.Sum256([]byte(key.Store + "\x00" + key.Session + "\x00" + key.Zone))
	return filepath.Join(filepath.Dir(cacheDir), "statusline", "store-"+hex.EncodeToString(h[:12])+".json")
}

// readStoreMemo is the memo at path, when it was made from what key names
// (the same build, store, stamps, session and zone) and holds at now. As
// the definitions' memo, it is read only when it is a regular file of at
// most maxStatusMemo bytes.
func readStoreMemo(path string, key storeMemo, now time.Time) (storeMemo, bool) {
	var d storeMemo
	b, err := clients.OSFS{}.ReadFileMax(path, maxStatusMemo)
	if err != nil || json.Unmarshal(b, &d) != nil {
		return d, false
	}
	same := d.Version == key.Version && d.Store == key.Store && d.Session == key.Session && d.Zone == key.Zone && slices.Equal(d.Stamps, key.Stamps)
	if !same || now.Before(d.At) || !now.Before(d.Until) || (d.BlockEnd != nil) != (d.BlockLast != nil) {
		return d, false
	}
	return d, true
}

// writeStoreMemo keeps d at path, whole or not at all, and removes the
// memos of sessions untouched for a day.
func writeStoreMemo(path string, d storeMemo) {
	b, err := json.Marshal(d)
	if err != nil {
		return
	}
	writeMemoFile(path, b)
	dir := filepath.Dir(path)
	old, _ := filepath.Glob(filepath.Join(dir, "store-*.json"))
	for _, f := range old {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > 24*time.Hour {
			os.Remove(f)
		}
	}
}

// statusDefinitions fills in what the MCP servers of the session's project
// cost Claude Code up front, from the measurement cache alone.
func (m *Machine) statusDefinitions(ctx context.Context, in usage.StatusInput, out *usage.StatusLine, mu *sync.Mutex) {
	project := in.Workspace.ProjectDir
	if project == "" {
		project = in.Cwd
	}
	if project == "" {
		return
	}
	cacheDir, err := m.cacheDir()
	if err != nil {
		return
	}
	memo := statusMemoPath(cacheDir, project)
	d, ok := readStatusMemo(memo, cacheDir, m.now())
	if !ok {
		quiet := *m
		quiet.Warn = nil
		// The tokenizer is loaded only when a cached server is counted.
		rep, _, err := quiet.Audit(ctx, AuditOptions{Clients: []string{clients.ClaudeCode}, Project: project, Offline: true, counter: lazyCounter{}})
		if err != nil || ctx.Err() != nil {
			return
		}
		d = statusMemo{Window: rep.ContextWindow, At: m.now()}
		for _, c := range rep.Configs {
			if c.Client != clients.ClaudeCode {
				continue
			}
			if c.UpFrontTokens != nil {
				d.Tokens += *c.UpFrontTokens
			} else {
				d.Tokens += c.TotalTokens
			}
			d.Servers += c.Measured
			d.Files = append(d.Files, c.Path)
		}
		for _, c := range rep.EmptyConfigs {
			if c.Client == clients.ClaudeCode {
				d.Files = append(d.Files, c.Path)
			}
		}
		writeStatusMemo(memo, cacheDir, d)
	}
	mu.Lock()
	out.MCPDefinitionTokens, out.MCPServers = &d.Tokens, d.Servers
	if out.ContextWindow == 0 {
		out.ContextWindow = int64(d.Window)
	}
	mu.Unlock()
}

// statusMemoAge is how long the status line's figure of a project's MCP
// definitions is used while none of the files it came from changed: a
// config file created since is seen after it.
const statusMemoAge = 10 * time.Minute

// statusMemo is the status line's figure of a project's MCP definitions,
// kept beside the measurement cache, so that a redraw does not audit
// again: what it came from (config files, the cache folder) with their
// sizes and times, to tell when it is stale.
type statusMemo struct {
	Tokens, Servers, Window int
	At                      time.Time
	Files                   []string
	Stamps                  []string
}

func statusMemoPath(cacheDir, project string) string {
	h := sha256.Sum256([]byte(project))
	return filepath.Join(filepath.Dir(cacheDir), "statusline", hex.EncodeToString(h[:12])+".json")
}

// stamp is a file's size and modification time, "" when it is missing.
func stamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}

func stamps(files []string, cacheDir string) []string {
	out := []string{stamp(cacheDir)}
	for _, f := range files {
		out = append(out, stamp(f))
	}
	return out
}

// maxStatusMemo is the size of the largest memo read: one is a few
// hundred bytes.
const maxStatusMemo = 1 << 20

// readStatusMemo is the memo at path, when it is fresh at now. It is read
// only when it is a regular file of at most maxStatusMemo bytes: a link to
// a device, a pipe or a file of /proc in its place is worked out again,
// not read without end.
func readStatusMemo(path, cacheDir string, now time.Time) (statusMemo, bool) {
	var d statusMemo
	b, err := clients.OSFS{}.ReadFileMax(path, maxStatusMemo)
	if err != nil || json.Unmarshal(b, &d) != nil {
		return d, false
	}
	if now.Sub(d.At) > statusMemoAge || now.Before(d.At) || !slices.Equal(d.Stamps, stamps(d.Files, cacheDir)) {
		return d, false
	}
	return d, true
}

// writeStatusMemo keeps d at path, whole or not at all; a folder that
// cannot be written only costs the next redraw an audit.
func writeStatusMemo(path, cacheDir string, d statusMemo) {
	d.Stamps = stamps(d.Files, cacheDir)
	b, err := json.Marshal(d)
	if err != nil {
		return
	}
	writeMemoFile(path, b)
}

// writeMemoFile writes b to path through a temporary file and a rename,
// so that a reader finds the old memo or the new one, never a part.
func writeMemoFile(path string, b []byte) {
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".memo-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// lazyCounter counts in o200k_base, loading it at the first count.
type lazyCounter struct{}

func (lazyCounter) Count(text string) int { return token.O200k().Count(text) }
