package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/token"
)

// AuditOptions configure [Machine.Audit].
type AuditOptions struct {
	// Configs are config files to audit instead of those discovered.
	Configs []string
	// Clients keeps these clients' configs (each may be a comma-separated
	// list); with Configs, the one client whose reader reads the files.
	Clients []string
	// Project is the folder whose project configs are read; "" for the
	// current one.
	Project string
	// TrustProject is the user's word for the servers of the project's
	// own config files that their client has no approval of.
	TrustProject bool
	// Resolve reads Configs as an MCP caller names them: ~/ is the home
	// folder, a relative path is of the project folder, and a missing
	// file is named as such.
	Resolve bool
	// Remote says the caller is not the user: of a config file it names
	// that cannot be read it learns only that it is no config, or the
	// position of its parse error.
	Remote bool

	// The gates and the window, as audit.Options.
	ContextWindow, Budget, Threshold int
	AllowUnmeasured                  bool

	// Refresh measures again; Offline launches nothing and answers from
	// the cache (ErrNoCache without one); NoLaunch lists what would be
	// launched.
	Refresh, Offline, NoLaunch bool
	// Strict launches each server twice, as measure does; by default each
	// is launched once (see audit.Options.Strict).
	Strict bool
	// MaxAge is how long a cached measurement is used; 0 for
	// audit.DefaultMaxAge.
	MaxAge time.Duration
	// Timeout bounds the measurement of each server; 0 for
	// mcpclient.DefaultTimeout.
	Timeout         time.Duration
	Concurrency     int
	ProtocolVersion string
	// Claude adds Claude's own counts: from count_tokens for Model when
	// ANTHROPIC_API_KEY is set, else the published figures.
	Claude bool
	Model  string
	// Progress is told of the servers measured; nil for none.
	Progress Progress
	// Auditing, when set, is told how many configs are audited, before
	// their servers are.
	Auditing func(configs int)

	// cacheOptional goes on Offline without a cache, with a warning:
	// the servers are then not judged.
	cacheOptional bool
	// counter counts tokens; nil for o200k_base, loaded at once.
	counter token.Counter
}

// DefaultTimeout bounds the measurement of one server.
const DefaultTimeout = mcpclient.DefaultTimeout

// ErrNothingRead is the answer of an audit of config files none of which
// could be read.
var ErrNothingRead = errors.New("no config file given could be read")

// auditRun is an audit with what it was run from.
type auditRun struct {
	rep     *audit.Report
	sys     clients.System
	configs []clients.Config
	cache   *audit.Cache
}

// Audit finds the configs (the files given, or those of every client, of
// the clients named), and measures their servers as their clients would
// launch them, from the cache where it can. unread are the files given
// that could not be read; the audit goes on without them, unless none
// could (ErrNothingRead).
func (m *Machine) Audit(ctx context.Context, o AuditOptions) (rep *audit.Report, unread []error, err error) {
	run, unread, err := m.audit(ctx, o)
	if err != nil {
		return nil, unread, err
	}
	return run.rep, unread, nil
}

func (m *Machine) audit(ctx context.Context, o AuditOptions) (*auditRun, []error, error) {
	want, err := m.clientNames(o.Clients)
	if err != nil {
		return nil, nil, err
	}
	sys, err := m.system(o.Project, o.TrustProject)
	if err != nil {
		return nil, nil, err
	}
	run := &auditRun{sys: sys}
	var unread []error
	if len(o.Configs) > 0 {
		if len(want) > 1 {
			return nil, nil, optionErrorf("with %s, %s names the one client whose reader to use, got %s", m.flag("config"), m.flag("client"), strings.Join(want, ", "))
		}
		force := ""
		if len(want) == 1 {
			force = want[0]
		}
		for _, p := range o.Configs {
			cfg, err := m.loadConfig(sys, p, force, o)
			if err != nil {
				unread = append(unread, err)
				continue
			}
			run.configs = append(run.configs, cfg)
		}
		if len(run.configs) == 0 {
			return nil, unread, ErrNothingRead
		}
	} else {
		run.configs, _ = clients.Discover(sys, want)
	}

	maxAge := o.MaxAge
	if maxAge <= 0 {
		maxAge = audit.DefaultMaxAge
	}
	run.cache = m.cache(maxAge)
	if run.cache == nil && o.Offline {
		if !o.cacheOptional {
			return nil, unread, ErrNoCache
		}
		launch := "--launch"
		if m.FlagPrefix == "" {
			launch = "launch: true"
		}
		m.warnf("no measurement cache: configured servers are not judged (measure them with %s)", launch)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = mcpclient.DefaultTimeout
	}
	var claudeClient *claude.Client
	if o.Claude {
		claudeClient = m.ClaudeClient(o.Model)
	}
	if o.Auditing != nil {
		o.Auditing(len(run.configs))
	}
	run.rep = audit.Run(ctx, run.configs, audit.Options{
		ContextWindow:   o.ContextWindow,
		Budget:          o.Budget,
		Threshold:       o.Threshold,
		AllowUnmeasured: o.AllowUnmeasured,
		Cache:           run.cache,
		Refresh:         o.Refresh,
		Offline:         o.Offline,
		NoLaunch:        o.NoLaunch,
		Strict:          o.Strict,
		// Discovered configs are every file of each client here: their
		// sessions are the headline and what the gates judge. Files given
		// are judged alone.
		Sessions: len(o.Configs) == 0,
		Folder:   sys.Cwd,
		Measure: mcpclient.Options{
			Timeout:         timeout,
			ProtocolVersion: o.ProtocolVersion,
			ClientVersion:   m.version(),
		},
		Counter:      o.counter,
		Concurrency:  o.Concurrency,
		ClaudeColumn: o.Claude,
		Claude:       claudeClient,
		Posture:      func(client string) clients.Posture { return clients.PostureFor(sys, client) },
		Now:          m.clock(),
		Generator:    m.generator(),
		Progress:     o.Progress.measureSteps(),
	})
	return run, unread, nil
}

// clientNames checks the clients named (each may be a comma-separated
// list).
func (m *Machine) clientNames(names []string) ([]string, error) {
	var want []string
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			if !clients.Known(part) {
				return nil, optionErrorf("unknown client %s (known: %s)", textsafe.Quote(part), strings.Join(clients.Clients(), ", "))
			}
			want = append(want, part)
		}
	}
	return want, nil
}

// loadConfig reads one config file given, as client reads its own ("" for
// the client the file belongs to).
func (m *Machine) loadConfig(sys clients.System, path, client string, o AuditOptions) (clients.Config, error) {
	if !o.Resolve {
		return clients.LoadAs(sys, path, client)
	}
	p := path
	if strings.HasPrefix(p, "~/") && sys.Home != "" {
		p = filepath.Join(sys.Home, p[2:])
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(sys.Cwd, p)
	}
	if _, err := os.Stat(p); err != nil && !o.Remote {
		if os.IsNotExist(err) {
			err = errors.New("no such file")
		} else if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // the path is shown once, clipped
		}
		return clients.Config{}, fmt.Errorf("config %s: %w", textsafe.Short(p), err)
	}
	cfg, err := clients.LoadAs(sys, p, client)
	switch {
	case err != nil && o.Remote:
		// The same words whether the file is missing, unreadable or not
		// a regular file: a remote caller learns no more about the
		// machine than that this path is no config.
		return clients.Config{}, fmt.Errorf("config %s: not found, or not readable as an MCP config", textsafe.Short(path))
	case err != nil:
		return clients.Config{}, err
	case o.Remote:
		if cfg.Error != "" {
			cfg.Error = positionOnly(path, cfg)
		}
		cfg.Notes = nil
	}
	return cfg, nil
}

// positionOnly words the error of a config at a path a remote caller chose
// with its position only: the parsers' messages may quote the file's keys
// and values, which are not the caller's to read.
func positionOnly(given string, cfg clients.Config) string {
	rest, ok := strings.CutPrefix(cfg.Error, cfg.Path)
	if m := errorPosition().FindStringSubmatch(rest); ok && m != nil {
		return fmt.Sprintf("config %s%s: not valid %s", given, m[1], m[2])
	}
	return fmt.Sprintf("config %s: not readable as an MCP config", given)
}

var errorPosition = lazyRegexp(`^(:\d+(?::\d+)?)?: not valid (JSON \(comments allowed\)|JSON|TOML|YAML)\b`)

// cache opens the measurement cache; nil when there is none (no folder
// for it, or one that cannot be opened: a warning).
func (m *Machine) cache(maxAge time.Duration) *audit.Cache {
	dir := m.CacheDir
	if dir == "" {
		var err error
		if dir, err = audit.DefaultCacheDir(m.getenv); err != nil {
			return nil
		}
	}
	c, err := audit.OpenCache(dir, maxAge)
	if err != nil {
		m.warnf("measurement cache unavailable: %v", err)
		return nil
	}
	return c
}
