package app

import (
	"sort"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// ClientsSchema is the schema of [Clients] as JSON.
const ClientsSchema = "mcpcost.clients/v1"

// Clients is where each MCP client keeps its servers on this machine:
// what is there, what was read, what is approved.
type Clients struct {
	Schema  string           `json:"schema"`
	OS      string           `json:"os"`
	Home    string           `json:"home"`
	Project string           `json:"project"`
	Clients []ClientEntry    `json:"clients"`
	Given   []clients.Config `json:"given"`
	Errors  []FileError      `json:"errors"`
}

// ClientEntry is one client: the places looked at, the configs found, and
// its posture (how it loads tool definitions).
type ClientEntry struct {
	Name    string             `json:"name"`
	Title   string             `json:"title"`
	Looked  []clients.Location `json:"looked"`
	Configs []clients.Config   `json:"configs"`
	Posture clients.Posture    `json:"posture"`
}

// FileError is a config file that could not be read.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
	// Hint says what to do about it, where the error says more than that
	// the file could not be used (a file over the size cap).
	Hint string `json:"hint,omitempty"`
}

// ClientsOptions configure [Machine.Clients].
type ClientsOptions struct {
	// Clients lists these clients (each may be a comma-separated list);
	// none for every one, unless Configs are given.
	Clients []string
	// Configs are config files to read as well.
	Configs []string
	// Project is the folder whose project configs are read; "" for the
	// current one.
	Project string
}

// Clients lists where each client keeps its configs and what they hold.
// With only Configs, discovery is skipped. A file given that cannot be
// read at all is an error; one that is read and invalid is in Errors.
func (m *Machine) Clients(o ClientsOptions) (*Clients, error) {
	want, err := m.clientNames(o.Clients)
	if err != nil {
		return nil, err
	}
	sys, err := m.system(o.Project, false)
	if err != nil {
		return nil, err
	}
	if o.Project != "" && !sys.FS.IsDir(sys.Cwd) {
		return nil, optionErrorf("%s %s is not a folder", m.flag("project"), textsafe.Short(o.Project))
	}
	rep := &Clients{Schema: ClientsSchema, OS: sys.OS, Home: sys.Home, Project: sys.Cwd,
		Clients: []ClientEntry{}, Given: []clients.Config{}, Errors: []FileError{}}
	if len(o.Configs) == 0 || len(want) > 0 {
		list := want
		if len(list) == 0 {
			list = clients.Clients()
		}
		sort.Strings(list)
		for i, name := range list {
			if i > 0 && name == list[i-1] {
				continue
			}
			found, looked := clients.Discover(sys, []string{name})
			entry := ClientEntry{Name: name, Title: clients.Title(name), Looked: looked, Configs: found,
				Posture: clients.PostureFor(sys, name)}
			if entry.Configs == nil {
				entry.Configs = []clients.Config{}
			}
			for _, l := range looked {
				if l.State == clients.StateInvalid || l.State == clients.StateUnreadable {
					rep.Errors = append(rep.Errors, FileError{Path: l.Path, Error: l.Error, Hint: l.Hint})
				}
			}
			rep.Clients = append(rep.Clients, entry)
		}
	}
	for _, p := range o.Configs {
		cfg, err := clients.Load(sys, p)
		if err != nil {
			if hasHint(err) {
				return nil, err
			}
			return nil, WithHint(err, m.flag("config")+" takes the path of an MCP config file such as .mcp.json")
		}
		if cfg.Error != "" {
			rep.Errors = append(rep.Errors, FileError{Path: cfg.Path, Error: cfg.Error, Hint: cfg.Hint})
		}
		rep.Given = append(rep.Given, cfg)
	}
	seen := map[FileError]bool{}
	errs := []FileError{}
	for _, e := range rep.Errors {
		if !seen[e] {
			seen[e] = true
			errs = append(errs, e)
		}
	}
	rep.Errors = errs
	return rep, nil
}
