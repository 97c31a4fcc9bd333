package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func init() {
	register(&Command{
		Name:  "clients",
		Short: "list where each MCP client keeps its servers, and what is there",
		Usage: clientsUsage,
		Run:   runClients,
	})
}

const clientsUsage = `usage: mcpcost clients [--client NAME]... [--config PATH]... [--project DIR]
                       [--all] [--json]

Lists the MCP client configuration files found on this machine (for this
OS, the home folder and the project folder; with --all every place each
client keeps one, whether a file is there or not), and the servers in each
file as the client reads them: name, transport, the launch with secrets
removed, and status (enabled, disabled and by which switch, overridden by
a higher-precedence entry, needing approval (a project's own server its
client would not start yet, and how to approve it), needing input that
only the client can prompt for, provided by an extension (a Zed entry
that only configures a server an extension starts, which mcpcost cannot
measure), or a problem with the entry), with the client's per-tool
filter when it has one. A file whose top level holds what look like
servers, outside the object its client reads them from ("mcpServers",
"servers", ...), says so. For each client
it also says whether tool definitions load up front or are deferred
(Claude Code's tool search, read from the shell and its settings files),
and its known limits.

Nothing is launched. Values of env and headers, and secrets in arguments
and URLs, are never printed; their names are.

Clients: claude-code, claude-desktop, cline, codex, continue, copilot-cli,
cursor, gemini, goose, opencode, vscode, windsurf, zed.

Flags:
  --client NAME    only this client (repeatable, or comma-separated)
  --config PATH    also read this file (repeatable); its client is told from
                   its name or content
  --project DIR    the project folder whose project configs are read
                   (default: the current folder)
  --all            every place looked at, the ones with no file too
  --json           print JSON (schema mcpcost.clients/v1; every place)

Exit status: 0 every file found was read, 1 a file found could not be
read or parsed (the others are still listed), 2 usage error or a --config
file that does not exist.`

// ClientsSchema is the schema of "mcpcost clients --json".
const ClientsSchema = app.ClientsSchema

func runClients(env *Env, args []string) int {
	f := newFlags("clients")
	names := f.Strings("client", "")
	configs := f.Strings("config", "")
	project := f.String("project", "", "")
	jsonFlag := f.Bool("json", "")
	all := f.Bool("all", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos)+len(rest) > 0 {
		return usageError(env, "clients", "unexpected argument %q", append(pos, rest...)[0])
	}
	rep, err := machine(env).Clients(app.ClientsOptions{Clients: *names, Configs: *configs, Project: *project})
	if err != nil {
		return failCall(env, "clients", err)
	}
	code := ExitOK
	if len(rep.Errors) > 0 {
		code = ExitFail
	}

	if *jsonFlag {
		if err := render.JSON(env.Stdout, rep); err != nil {
			return fail(env, err)
		}
	} else {
		writeClients(env.Stdout, rep, env.Screen(), *all)
	}
	// The body keeps each error; stderr says it too, with a hint, in
	// either form, as audit does.
	for _, e := range rep.Errors {
		errorf(env, "%s", e.Error)
		hintf(env, "%s", orHint(e.Hint, configFileHint))
	}
	return code
}

// writeClients prints the report for a terminal. Paths, names, launches,
// notes and errors come from files anyone can write: each is escaped with
// textsafe.Text (table cells by render.Table), and the whole through
// textsafe.Lines.
func writeClients(w io.Writer, rep *app.Clients, scr render.Screen, all bool) {
	var b strings.Builder
	clientsText(&b, rep, scr, all)
	scr.Emit(w, b.String())
}

// para writes text, escaped, wrapped to the screen's width after head.
func para(w io.Writer, scr render.Screen, head, text, indent string) {
	for _, l := range render.Wrap(head, textsafe.Text(text), indent, scr.Width) {
		fmt.Fprintln(w, l)
	}
}

func clientsText(w *strings.Builder, rep *app.Clients, scr render.Screen, all bool) {
	esc := textsafe.Text
	para(w, scr, "", fmt.Sprintf("MCP client configs on this machine (%s; home %s; project %s)", rep.OS, rep.Home, rep.Project), "  ")
	var none []string
	looked, hidden := 0, 0
	for _, c := range rep.Clients {
		var shown []clients.Location
		for _, l := range c.Looked {
			looked++
			if all || l.State != clients.StateNotFound {
				shown = append(shown, l)
			} else {
				hidden++
			}
		}
		if len(shown) == 0 {
			none = append(none, c.Title)
			continue
		}
		fmt.Fprintf(w, "\n%s (%s)\n", esc(c.Title), esc(c.Name))
		// The configs read at each place, in order, and the first of each
		// path: a project's .continue/mcpServers may hold tens of thousands
		// of files, each a place.
		type place struct{ path, scope string }
		at := map[place][]clients.Config{}
		first := map[string]clients.Config{}
		for _, cfg := range c.Configs {
			at[place{cfg.Path, cfg.Scope}] = append(at[place{cfg.Path, cfg.Scope}], cfg)
			if _, ok := first[cfg.Path]; !ok {
				first[cfg.Path] = cfg
			}
		}
		t := render.Table{Indent: "  ", Min: []int{0, 16, 12}, CutLeft: render.PathColumns(1), Width: scr.Width, Screen: scr}
		t.Tint = func(_, col int, cell string) render.Tint {
			if col == 2 && !strings.HasPrefix(cell, clients.StateFound+":") && cell != clients.StateNotFound {
				return render.Bad
			}
			return render.Plain
		}
		for _, l := range shown {
			state := l.State
			switch {
			case l.State == clients.StateFound && l.Note != "":
				state += ": " + l.Note
			case l.State == clients.StateFound:
				state += fmt.Sprintf(": %d server%s", l.Servers, num.Plural(l.Servers, "", "s"))
			case l.State == clients.StateInvalid:
				state = "found, not readable as " + formatOf(first, l)
			}
			t.Add(l.Scope, l.Path, state)
		}
		lines := t.RowLines()
		for i, l := range shown {
			for _, line := range lines[i] {
				fmt.Fprintln(w, line)
			}
			if l.Error != "" {
				para(w, scr, "      error: ", l.Error, "        ")
			}
			for _, cfg := range at[place{l.Path, l.Scope}] {
				if cfg.Error == "" {
					writeClientServers(w, cfg, scr)
				}
			}
		}
		para(w, scr, "  Tool definitions: ", c.Posture.Summary()+".", "    ")
		for _, src := range c.Posture.Sources {
			if src.State == clients.SourceAbsent {
				continue
			}
			place := src.Path
			if src.Scope == "shell" {
				place = "the shell"
			}
			var held []string
			switch {
			case src.State == clients.SourceUnreadable:
				held = append(held, "could not be read")
			case src.State == clients.SourceSkipped:
				held = append(held, "not valid JSON: Claude Code skips the whole file")
			case len(src.Sets)+len(src.Unreadable) == 0:
				held = append(held, "sets none of "+clients.VarDisableBetas+", "+clients.VarToolSearch+", "+clients.VarBaseURL)
			}
			if len(src.Sets) > 0 {
				held = append(held, "sets "+strings.Join(src.Sets, ", "))
			}
			if len(src.Unreadable) > 0 {
				held = append(held, "sets "+strings.Join(src.Unreadable, ", ")+" to a non-string")
			}
			if src.Decided {
				held = append(held, "which decided")
			}
			para(w, scr, "    ", "read from "+place+": "+strings.Join(held, ", "), "      ")
		}
		for _, l := range c.Posture.Limits {
			verified := "documented"
			if !l.Verified {
				verified = "unverified"
			}
			para(w, scr, "  Known limit: ", l.Text+" ("+verified+": "+l.Source+").", "    ")
		}
	}
	if len(none) > 0 {
		fmt.Fprintln(w)
		para(w, scr, "", "No config found for "+strings.Join(none, ", ")+".", "  ")
	}
	// --all lists the places left out here: none when nothing was looked
	// for (--config alone) or every place is shown.
	switch {
	case hidden == 0:
	case looked == 1:
		fmt.Fprintln(w)
		para(w, scr, "", "'mcpcost clients --all' lists the one place looked at.", "")
	default:
		fmt.Fprintln(w)
		para(w, scr, "", fmt.Sprintf("'mcpcost clients --all' lists all %d places looked at.", looked), "")
	}
	if len(rep.Given) > 0 {
		fmt.Fprintf(w, "\nGiven with --config\n")
		for _, cfg := range rep.Given {
			writeGiven(w, cfg, scr)
		}
	}
}

// writeGiven prints a file given with --config and its servers.
func writeGiven(w io.Writer, cfg clients.Config, scr render.Screen) {
	as := clients.Title(cfg.Client) + ", " + cfg.Format
	if cfg.Client == clients.Explicit {
		as = "the common shape, " + cfg.Format + ": no client could be told from its name or content"
	}
	para(w, scr, "  ", cfg.Path+" (read as "+as+")", "    ")
	if cfg.Error != "" {
		para(w, scr, "      error: ", cfg.Error, "        ")
		return
	}
	if len(cfg.Servers) == 0 {
		fmt.Fprintf(w, "      no servers\n")
	}
	writeClientServers(w, cfg, scr)
}

// writeClientServers prints a config's notes and servers, each server
// followed by its details.
func writeClientServers(w io.Writer, cfg clients.Config, scr render.Screen) {
	for _, n := range cfg.Notes {
		para(w, scr, "      note: ", n, "        ")
	}
	if len(cfg.Servers) == 0 {
		return
	}
	t := render.Table{Indent: "      ", Min: []int{12, 0, 10, 12}, Width: scr.Width, Screen: scr}
	for _, s := range cfg.Servers {
		transport := s.Transport
		if transport == "" {
			transport = "-"
		}
		t.Add(s.Name, transport, s.Status(), s.Display())
	}
	lines := t.RowLines()
	for i, s := range cfg.Servers {
		for _, line := range lines[i] {
			fmt.Fprintln(w, line)
		}
		for _, d := range clientServerDetails(s) {
			para(w, scr, "          ", d, "            ")
		}
	}
}

// serverDetails are the lines under a server: why it is not launched, its
// filter, what it lacks.
func clientServerDetails(s clients.Server) []string {
	var out []string
	if s.Problem != "" {
		out = append(out, "problem: "+s.Problem)
	}
	if s.Status() == clients.StatusExtension {
		out = append(out, "provided by "+s.ProvidedBy+", which starts it with a command not in this file: mcpcost cannot measure it")
	}
	if s.DisabledBy != "" {
		out = append(out, "disabled: "+s.DisabledBy)
	}
	if s.OverriddenBy != "" {
		out = append(out, "overridden by "+s.OverriddenBy)
	}
	if s.Status() == clients.StatusNeedsApproval {
		out = append(out, "needs approval: "+s.NeedsApproval)
	}
	if len(s.NeedsInput) > 0 {
		out = append(out, "needs input the client prompts for: "+strings.Join(s.NeedsInput, ", "))
	}
	if len(s.Unset) > 0 {
		out = append(out, "refers to unset variables: "+strings.Join(s.Unset, ", "))
	}
	if names := s.EnvNames(); len(names) > 0 {
		out = append(out, "env: "+strings.Join(names, ", "))
	}
	if names := s.HeaderNames(); len(names) > 0 {
		out = append(out, "headers: "+strings.Join(names, ", "))
	}
	if s.Filter != nil {
		out = append(out, "tool filter: "+clientFilterText(s.Filter))
	}
	if s.AlwaysLoad {
		out = append(out, `"alwaysLoad": true: its tools load at session start even when tool search defers`)
	}
	for _, n := range s.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

func clientFilterText(f *clients.ToolFilter) string {
	var parts []string
	if f.AllowList {
		if len(f.Include) == 0 {
			parts = append(parts, "no tools allowed")
		} else {
			parts = append(parts, "only "+strings.Join(f.Include, ", "))
		}
	}
	if len(f.Exclude) > 0 {
		parts = append(parts, "not "+strings.Join(f.Exclude, ", "))
	}
	s := strings.Join(parts, "; ")
	if f.Prefix != "" {
		s += fmt.Sprintf(" (patterns match %q + the tool name)", f.Prefix)
	}
	return s + " (" + f.Source + ")"
}

func formatOf(first map[string]clients.Config, l clients.Location) string {
	c, ok := first[l.Path]
	if !ok {
		return "its format"
	}
	switch c.Format {
	case clients.FormatJSON:
		return "strict JSON"
	case clients.FormatJSONC:
		return "JSON with comments"
	}
	return strings.ToUpper(c.Format)
}
