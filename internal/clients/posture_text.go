package clients

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/num"
)

// Explain words a posture for a report, as paragraphs: a line without
// leading spaces is a paragraph (renderers wrap it), a line starting with
// two spaces is an item of the list the paragraph before it introduces.
// check is the threshold comparison (nil outside threshold mode, or when
// the caller has no totals).
func (p Posture) Explain(check *ThresholdCheck) []string {
	name := Title(p.Client)
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	switch p.Mode {
	case ModeNoRecord:
		add(fmt.Sprintf("No default deferral is on record for %s, so every request carries these tokens before you type anything — an absence of a record about the client, not a measurement of it.", name))
		for _, l := range p.Limits {
			if !strings.HasPrefix(l.Kind, "tools-") && l.Kind != "virtual-tools" {
				continue
			}
			add("Known limit: " + l.Text + " (" + limitSource(l) + ").")
		}
		return out
	case ModeUnknownClient:
		add("Which client reads this file is not known (neither its path nor its shape tells), so whether that client defers tool definitions is not known either: counted as loaded up front. --client NAME with --config reads the file as that client does.")
		return out
	case ModeDeferred:
		add(fmt.Sprintf("%s defers every MCP tool definition (tool search), with no threshold — %s. These tokens are NOT loaded up front at any size; they load when the model reaches for a tool. Size decides nothing here, so none of the arithmetic above changes the answer.", name, p.settingPhrase()))
		add(p.whereLines()...)
		add("The full number is paid where deferral does not apply:")
		add(items(p.Exceptions)...)
	case ModeUpFront:
		add(fmt.Sprintf("%s loads every tool definition up front here: tool search is off because %s. Every request carries these tokens before you type anything.", name, p.settingPhrase()))
		add(p.whereLines()...)
	case ModeThreshold:
		share := strconv.Itoa(p.ThresholdPercent) + "%"
		if check != nil {
			add(fmt.Sprintf("%s defers tool definitions above a threshold here (tool search): %s, so deferral activates once the definitions reach %s tokens — %s of the context window.", name, p.settingPhrase(), num.Int(check.ThresholdTokens), share))
		} else {
			add(fmt.Sprintf("%s defers tool definitions above a threshold here (tool search): %s, so deferral activates once the definitions reach %s of the context window.", name, p.settingPhrase(), share))
		}
		add(p.whereLines()...)
		if check != nil {
			add(check.explain(p.Exceptions)...)
		}
	case ModeUnrecognized:
		add(fmt.Sprintf(`%s is set to "%s" on this machine, which is not one of the values %s documents (unset, true, false, auto, auto:N). Whether these tokens are deferred cannot be said from it.`, p.Setting.Variable, p.value(), name))
		add(p.whereLines()...)
	case ModeUnresolved:
		switch p.Refusal {
		case RefusalDisagree:
			add(fmt.Sprintf("%s is set to different values by more than one place this machine reads it from, and which one %s takes is not on record here. Whether these tokens are deferred cannot be said from them.", p.Setting.Variable, name))
		case RefusalValueUnreadable:
			add(fmt.Sprintf("%s is set by a settings file %s reads (%s), to something that is not a value this can read — an env block holds it as a JSON boolean, a number or null rather than a string. It is set there, and what it is set to is unknown, so whether these tokens are deferred cannot be said from it.", p.Setting.Variable, name, p.Setting.Source))
		case RefusalSourceUnreadable:
			add(fmt.Sprintf("A settings file %s reads exists here and could not be read, so what it sets is unknown — and it can set the variable that decides this. Whether these tokens are deferred cannot be said from them.", name))
		}
		add(p.whereLines()...)
	}
	return out
}

// Summary is the posture in one line.
func (p Posture) Summary() string {
	switch p.Mode {
	case ModeDeferred:
		return "defers every MCP tool definition (tool search): " + p.settingPhrase()
	case ModeUpFront:
		return "loads every tool definition up front: " + p.settingPhrase()
	case ModeThreshold:
		return fmt.Sprintf("defers tool definitions once they reach %d%% of the context window: %s", p.ThresholdPercent, p.settingPhrase())
	case ModeUnrecognized:
		return fmt.Sprintf(`cannot be said: %s is set to "%s", which is not a documented value`, p.Setting.Variable, p.value())
	case ModeUnresolved:
		switch p.Refusal {
		case RefusalDisagree:
			return "cannot be said: " + p.Setting.Variable + " is set to different values by the shell and a settings file"
		case RefusalValueUnreadable:
			return "cannot be said: " + p.Setting.Variable + " is set in " + p.Setting.Source + " to something that is not a string"
		}
		return "cannot be said: a settings file exists and could not be read"
	case ModeNoRecord:
		return "no deferral on record: counted as loading every tool definition up front"
	}
	return "client not known: read as loading every tool definition up front"
}

func items(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "  " + s
	}
	return out
}

func limitSource(l Limit) string {
	if l.Verified {
		return "documented: " + l.Source
	}
	return "unverified: " + l.Source
}

func (p Posture) value() string {
	if p.Setting == nil || p.Setting.Value == nil {
		return ""
	}
	return *p.Setting.Value
}

// settingPhrase names what decided.
func (p Posture) settingPhrase() string {
	s := p.Setting
	switch {
	case s == nil || s.Variable == "":
		return "by default"
	case !s.ReadFromMachine:
		return s.Variable + " is unset here, which is the documented default"
	case s.Variable == VarBaseURL && s.Host == unreadableURL:
		return VarBaseURL + " is set to a URL this cannot read on this machine"
	case s.Variable == VarBaseURL:
		return VarBaseURL + " points at " + s.Host + " on this machine"
	}
	return s.Variable + "=" + p.value() + " on this machine"
}

// whereLines say where the variables were read.
func (p Posture) whereLines() []string {
	if len(p.Sources) == 0 {
		return []string{"Its settings files were NOT read here, so what they set is unknown."}
	}
	out := []string{"Where this was read — Claude Code takes these variables from the shell it starts in and from the env block of its own settings files:"}
	absent := 0
	for _, s := range p.Sources {
		if s.State == SourceAbsent {
			absent++
			continue
		}
		place := s.Path
		if s.Scope == "shell" {
			place = "this shell"
		}
		var held string
		switch {
		case s.State == SourceUnreadable:
			held = "could not be read — what it sets is unknown"
			if s.Error != "" {
				held += " (" + s.Error + ")"
			}
		case s.State == SourceSkipped:
			held = "is not valid JSON, and Claude Code skips the whole file (\"Invalid or malformed JSON\"), so it sets nothing"
			if s.Error != "" {
				held += " (" + s.Error + ")"
			}
		case len(s.Sets) > 0 && len(s.Unreadable) > 0:
			held = "sets " + strings.Join(s.Sets, ", ") + ", and sets " + strings.Join(s.Unreadable, ", ") + " to a value this cannot read"
		case len(s.Sets) > 0:
			held = "sets " + strings.Join(s.Sets, ", ")
		case len(s.Unreadable) > 0:
			held = "sets " + strings.Join(s.Unreadable, ", ") + " to a value this cannot read"
		default:
			held = "sets none of them"
		}
		if s.Decided {
			held += ", which decided this"
		}
		out = append(out, "  "+place+" — "+held)
	}
	switch absent {
	case 0:
	case 1:
		out = append(out, "  1 other settings file it reads is not on this machine")
	default:
		out = append(out, fmt.Sprintf("  %d other settings files it reads are not on this machine", absent))
	}
	return out
}

// explain words the threshold comparison.
func (c *ThresholdCheck) explain(exceptions []string) []string {
	var out []string
	wire := num.Int(c.WireTokens)
	if c.Floor {
		wire = "at least " + wire
	}
	if c.Exact {
		out = append(out, fmt.Sprintf("This stack is %s tokens on the wire, and %s by the published Anthropic counts for all %d measured server(s) — which is the side the threshold is counted on.", wire, num.Int(c.Low), c.Servers))
	} else {
		tail := "."
		if c.Published > 0 {
			tail = fmt.Sprintf(", with %d of them taken from published counts.", c.Published)
		}
		out = append(out, fmt.Sprintf("This stack is %s tokens on the wire. The threshold is counted in what the client sends to the API, which is a different number: across %d servers in %s the two differ by %.2f×–%.2f×, putting this stack between %s and %s tokens on that side%s",
			wire, BandServers, BandSource, c.BandLow, c.BandHigh, num.Int(c.Low), num.Int(c.High), tail))
	}
	switch {
	case c.Crosses != nil && *c.Crosses:
		out = append(out, fmt.Sprintf("That is at or above the threshold — over by %s at the low end — so these tokens are NOT loaded up front. The full number is still paid where deferral does not apply:", num.Int(c.DistanceLow)))
		out = append(out, items(exceptions)...)
	case c.Crosses != nil:
		out = append(out, fmt.Sprintf("That is below the threshold — under by %s at the high end — so deferral does not activate and every request carries these tokens before you type anything.", num.Int(-c.DistanceHigh)))
	default:
		out = append(out, "Which side this stack falls on cannot be said:")
		if c.High >= c.ThresholdTokens && c.Low < c.ThresholdTokens {
			out = append(out, fmt.Sprintf("  that range straddles the %s-token threshold", num.Int(c.ThresholdTokens)))
		}
		if c.Floor {
			out = append(out, `  some servers here produced no number, and what they serve counts toward it too — see "not measured" above`)
		}
		if !c.Exact {
			out = append(out, "  run with --claude to replace the estimate with Anthropic's own counts")
		}
	}
	return out
}

// SessionLines say that several Claude Code config files are read into one
// session and face the posture together, as their sum.
func SessionLines(paths []string) []string {
	if len(paths) < 2 {
		return nil
	}
	out := []string{fmt.Sprintf("These %d config files are read into one Claude Code session:", len(paths))}
	out = append(out, items(paths)...)
	return append(out, "so they face the question below together, as their sum.")
}
