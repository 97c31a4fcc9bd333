package app

import (
	"context"
	"errors"
	"os"
	"os/user"
	"strings"

	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/store"
)

// PushOptions configure [Machine.Push].
type PushOptions struct {
	// URL is the shared store: a postgres:// URL; "" for MCPCOST_STORE.
	URL string
	// Machine names this machine in the shared store; "" for its host
	// name.
	Machine string
	// NoIngest pushes the local store as it is, without reading the
	// transcripts first.
	NoIngest bool
	// Progress is told of the ingest's files read; nil for none.
	Progress Progress
}

// PushResult is what [Machine.Push] did: the shared store (its URL without
// its password), the machine and user the rows were pushed as, and what
// changed.
// Its JSON is the schema mcpcost.push/v1.
type PushResult struct {
	Schema  string `json:"schema"`
	Store   string `json:"store"`
	Machine string `json:"machine"`
	User    string `json:"user"`
	Rows    int    `json:"rows"`
	Added   int    `json:"added"`
	Dropped int    `json:"dropped"`
}

// Push reads what is new in the transcripts into the local store (unless
// o.NoIngest), then sends what the local store holds to the shared store.
func (m *Machine) Push(ctx context.Context, o PushOptions) (*PushResult, error) {
	url := o.URL
	if url == "" {
		url = m.getenv("MCPCOST_STORE")
	}
	if url == "" {
		return nil, &hinted{errors.New("push needs a shared store"), "name one with --store postgres://USER@HOST/DB or MCPCOST_STORE"}
	}
	if !store.IsPostgresURL(url) {
		return nil, optionErrorf("%sstore %s: push sends to a PostgreSQL store, a postgres:// or postgresql:// URL", m.FlagPrefix, redact.DSN(url))
	}
	machine := o.Machine
	if machine == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			return nil, &hinted{errors.New("this machine has no host name"), "name it with " + m.FlagPrefix + "machine NAME"}
		}
		machine = h
	}
	if strings.TrimSpace(machine) != machine || len(machine) > 255 {
		return nil, optionErrorf("%smachine %q: a name of 1 to 255 characters, without surrounding spaces", m.FlagPrefix, machine)
	}
	st, _, err := m.openStore(ctx, StoreOptions{NoIngest: o.NoIngest, Progress: o.Progress})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	who := osUser()
	stats, err := st.Push(ctx, url, store.PushOptions{Machine: machine, User: who, Now: m.Now})
	if err != nil {
		return nil, &hinted{err, "nothing was sent: the shared store is as it was; the local store keeps everything, push again later"}
	}
	return &PushResult{Schema: "mcpcost.push/v1", Store: redact.DSN(url), Machine: machine, User: who,
		Rows: stats.Rows, Added: stats.Added, Dropped: stats.Dropped}, nil
}

// osUser is the OS user running mcpcost: its login name, else USER or
// USERNAME.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	for _, k := range []string{"USER", "USERNAME"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}
