package clients

import (
	"fmt"
	"strings"

	"github.com/mcpcost/mcpcost/internal/num"
)

// unwrapped tells, of a config that declares no server, whether its top
// level holds what look like server entries written without the object
// the client reads them from (key): {"name": {"command": ...}} where
// {"mcpServers": {"name": {...}}} was meant. A value looks like a server
// when it is an object with a string "command" (for opencode, also a list)
// or a string url under one of urlKeys ("url" when none). When some do,
// a note naming them and the object, and a hint with the shape, go on cfg,
// which is then a config without a server rather than a file without MCP
// servers.
func unwrapped(cfg *Config, top map[string]any, key string, urlKeys ...string) bool {
	if len(cfg.Servers) > 0 || cfg.Error != "" {
		return false
	}
	if len(urlKeys) == 0 {
		urlKeys = []string{"url"}
	}
	var names []string
	for _, k := range sortedKeys(top) {
		m, ok := top[k].(map[string]any)
		if !ok || k == key {
			continue
		}
		_, cmd := m["command"].(string)
		if list, ok := m["command"].([]any); ok && cfg.Client == Opencode && len(list) > 0 {
			cmd = true
		}
		for _, u := range urlKeys {
			if _, ok := m[u].(string); ok {
				cmd = true
			}
		}
		if cmd {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return false
	}
	what, looks := "key", "looks like a server"
	if len(names) > 1 {
		what, looks = "keys", "look like servers"
	}
	reads := ", where " + Title(cfg.Client) + " reads servers"
	if cfg.Client == Explicit {
		reads = ""
	}
	if cfg.Format == FormatTOML {
		what = "table"
		if len(names) > 1 {
			what = "tables"
		}
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("top-level %s %s %s outside [%s]: %s reads servers only from [%s.NAME] tables",
			what, quotedList(names, "[", "]"), looks, key, Title(cfg.Client), key))
		cfg.Hint = fmt.Sprintf("name each table [%s.NAME]: [%s.%s]", key, key, names[0])
		return true
	}
	article := "a"
	if strings.ContainsRune("aeiouAEIOU", rune(key[0])) || strings.HasPrefix(key, "mcp") { // "em-cee-pee"
		article = "an"
	}
	cfg.Notes = append(cfg.Notes, fmt.Sprintf("top-level %s %s %s outside %s %q object%s",
		what, quotedList(names, `"`, `"`), looks, article, key, reads))
	shape := make([]string, 0, 3)
	for i, n := range names {
		if i == 2 && len(names) > 3 {
			shape = append(shape, "...")
			break
		}
		shape = append(shape, fmt.Sprintf("%q: {...}", n))
	}
	it := "it"
	if len(names) > 1 {
		it = "them"
	}
	cfg.Hint = fmt.Sprintf("move %s into %q: {%q: {%s}}", it, key, key, strings.Join(shape, ", "))
	return true
}

// quotedList is names between open and close, "a", "b" and "c", the
// first five and how many more after them.
func quotedList(names []string, open, close string) string {
	var q []string
	for i, n := range names {
		if i == 5 {
			q = append(q, fmt.Sprintf("%d more", len(names)-5))
			break
		}
		if open == `"` {
			q = append(q, fmt.Sprintf("%q", n))
		} else {
			q = append(q, open+n+close)
		}
	}
	return num.JoinAnd(q)
}
