// Package textsafetest checks rendered output for what package textsafe
// keeps out of it, for the tests of the renderers and of the commands.
package textsafetest

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// CheckText returns an error when out is not UTF-8 or holds a rune that
// textsafe.Text escapes, other than a line feed.
func CheckText(out string) error {
	if !utf8.ValidString(out) {
		return fmt.Errorf("not UTF-8")
	}
	for i, r := range out {
		if r != '\n' && textsafe.Unsafe(r) {
			return fmt.Errorf("a raw %U at byte %d: %q", r, i, around(out, i))
		}
	}
	return nil
}

var (
	liveMention = regexp.MustCompile(`(^|[^\w&])@[A-Za-z0-9]`)
	htmlTag     = regexp.MustCompile(`</?([A-Za-z][A-Za-z0-9-]*)`)
	// ownTags are the tags mcpcost's Markdown writes itself.
	ownTags = map[string]bool{"details": true, "summary": true, "code": true, "br": true, "sub": true}
)

// CheckMarkdown returns an error when out fails CheckText, or when, outside
// its fenced code blocks, it mentions anyone, holds a tag mcpcost does not
// write, a link, or a backtick (mcpcost writes code in <code>), or has a
// table row with a different number of cells from its header; or when a
// line inside a fenced block closes it with a fence of another length.
func CheckMarkdown(out string) error {
	if err := CheckText(out); err != nil {
		return err
	}
	cells, fence := -1, ""
	for i, l := range strings.Split(out, "\n") {
		n := i + 1
		if fence != "" {
			if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
				if strings.TrimSpace(l) != fence {
					return fmt.Errorf("line %d: %q inside a block fenced with %s", n, l, fence)
				}
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(l, "```") {
			fence = l
			continue
		}
		if loc := liveMention.FindStringIndex(l); loc != nil {
			return fmt.Errorf("line %d: a live mention: %q", n, around(l, loc[0]))
		}
		for _, m := range htmlTag.FindAllStringSubmatchIndex(l, -1) {
			if tag := strings.ToLower(l[m[2]:m[3]]); !ownTags[tag] {
				return fmt.Errorf("line %d: raw HTML <%s>: %q", n, tag, around(l, m[0]))
			}
		}
		for _, s := range []string{"](", "`"} {
			if j := strings.Index(l, s); j >= 0 {
				return fmt.Errorf("line %d: %q: %q", n, s, around(l, j))
			}
		}
		if !strings.HasPrefix(l, "|") {
			cells = -1
			continue
		}
		c := strings.Count(l, "|") - strings.Count(l, `\|`)
		if cells < 0 {
			cells = c
		} else if c != cells {
			return fmt.Errorf("line %d: a table row with %d pipes under a header with %d: %q", n, c, cells, l)
		}
	}
	if fence != "" {
		return fmt.Errorf("a code block fenced with %s is never closed", fence)
	}
	return nil
}

func around(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+60)]
}
