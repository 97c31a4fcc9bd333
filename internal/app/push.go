package app

import (
	"context"
	"errors"
	"os"
	"os/user"

	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/store"
)

// PushOptions configure [Machine.Push].
type PushOptions struct {
	// URL is the shared store: a postgres:// URL; "" for MCPCOST_STORE.
	URL string
	// Machine names this machine in the shared store; "" for
	// Machine.MachineName, MCPCOST_MACHINE, else the host name.
	Machine string
	// NoIngest pushes the local store as it is, without reading the
	// transcripts first.
	NoIngest bool
	// RedactProjects sends project paths as keyed hashes (HMAC-SHA256
	// under MCPCOST_PROJECT_KEY, else the key file in the user's config
	// folder, made on first use), so that the shared store holds no path.
	RedactProjects bool
	// Progress is told of the ingest's files read; nil for none.
	Progress Progress
}

// PushResult is what [Machine.Push] did: the shared store (its URL without
// its password), the machine and user the rows were pushed as, the rows
// sent (those new or changed since this machine's last push; every row
// on a first one) and what changed (store.PushStats).
// Its JSON is the schema mcpcost.push/v1.
type PushResult struct {
	Schema  string `json:"schema"`
	Store   string `json:"store"`
	Machine string `json:"machine"`
	User    string `json:"user"`
	Rows    int    `json:"rows"`
	Added   int    `json:"added"`
	Updated int    `json:"updated"`
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
	mm := *m
	if o.Machine != "" {
		mm.MachineName = o.Machine
	}
	mm.RedactProjects = mm.RedactProjects || o.RedactProjects
	if _, err := mm.machineName(); err != nil {
		return nil, err
	}
	st, _, err := mm.openStore(ctx, StoreOptions{NoIngest: o.NoIngest, Progress: o.Progress, Local: true, Write: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	p, err := mm.pushStore(ctx, st, url)
	if err != nil {
		return nil, err
	}
	return &PushResult{Schema: "mcpcost.push/v1", Store: redact.DSN(url), Machine: p.machine, User: p.user,
		Rows: p.Rows, Added: p.Added, Updated: p.Updated, Dropped: p.Dropped}, nil
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
