package cli

import "github.com/mcpcost/mcpcost/internal/app"

// storeFlags are the flags of the commands that read the usage store:
// which store (--store), whose rows (--machine, --user) and how project
// paths leave the machine (--redact-projects).
type storeFlags struct {
	store, machine, user *string
	redactProjects       *bool
}

func addStoreFlags(f *flags) *storeFlags {
	return &storeFlags{
		store:          f.String("store", "", ""),
		machine:        f.String("machine", "", ""),
		user:           f.String("user", "", ""),
		redactProjects: f.Bool("redact-projects", ""),
	}
}

// apply names the store on m.
func (sf *storeFlags) apply(m *app.Machine) {
	m.Store, m.RedactProjects = *sf.store, *sf.redactProjects
}

// storeFlagsUsage documents the flags, aligned for usage, blocks and serve
// (columns 2 and 19).
const storeFlagsUsage = `  --store URL      the store (default: MCPCOST_STORE, else the local one):
                   sqlite:PATH or a path, or a team's shared PostgreSQL
                   store, postgres://...: what is new here is read into
                   the local store and pushed first (see 'mcpcost help
                   push'); the password is never printed
  --machine NAME   the rows of one machine (a name --by machine lists);
                   this machine is named MCPCOST_MACHINE, else its host name
  --user NAME      the rows of one OS user (a name --by user lists)
  --redact-projects  with a shared store: push project paths as keyed
                   hashes (see 'mcpcost help push')`

// storeFlagsUsageWide is storeFlagsUsage for findings and report (column
// 25).
const storeFlagsUsageWide = `  --store URL            the store (default: MCPCOST_STORE, else the local
                         one): sqlite:PATH or a path, or a shared
                         PostgreSQL store, postgres://..., which what is
                         new here is pushed to first ('mcpcost help push')
  --machine NAME         the rows of one machine (see 'usage --by machine')
  --user NAME            the rows of one OS user (see 'usage --by user')
  --redact-projects      with a shared store: push project paths as keyed
                         hashes (see 'mcpcost help push')`
