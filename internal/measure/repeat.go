package measure

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// maxRepeatedShown is how many repeated names a warning quotes; the rest
// are counted.
const maxRepeatedShown = 10

// Repeated is one tool name that more than one tool of a capture has.
type Repeated struct {
	Name  string
	Tools int // how many tools have it, at least 2
}

// RepeatedNames returns the tool names that two or more of tools have,
// sorted by name. Tools without a string name are not compared.
func RepeatedNames(tools []*canon.Value) []Repeated {
	seen := make(map[string]int, len(tools))
	for _, t := range tools {
		if n := t.Get("name"); n != nil && n.Kind() == canon.String {
			seen[n.Str()]++
		}
	}
	var out []Repeated
	for name, k := range seen {
		if k > 1 {
			out = append(out, Repeated{Name: name, Tools: k})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RepeatedNamesWarning is the warning for a server whose tools/list gives
// two tools the same name, or "" when no name repeats. The Anthropic API
// rejects a request whose tool names repeat and clients differ in which of
// the tools they keep, while the count is of every tool, as sent. The
// server's name and the tools' names are quoted (escaped and cut, see
// [textsafe.Quote]), the first few names only.
func RepeatedNamesWarning(server string, tools []*canon.Value) string {
	rep := RepeatedNames(tools)
	if len(rep) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "server %s lists tools that share a name: ", textsafe.Quote(server))
	for i, r := range rep {
		if i == maxRepeatedShown {
			fmt.Fprintf(&b, " and %d more", len(rep)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d tools)", textsafe.Quote(r.Name), r.Tools)
	}
	b.WriteString("; the Anthropic API rejects a request whose tool names repeat, and clients differ in which of the tools they keep; the count is of every tool, as the server sent them")
	return b.String()
}
