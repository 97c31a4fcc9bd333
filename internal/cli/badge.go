package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpcost/mcpcost/internal/badge"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func init() {
	register(&Command{
		Name:  "badge",
		Short: "make a context-cost badge: a shields.io endpoint JSON and an SVG",
		Usage: badgeUsage,
		Run:   runBadge,
	})
}

const badgeUsage = `usage: mcpcost badge [flags] REPORT

Make the context-cost badge of a measurement: REPORT is a measurement.json
('mcpcost measure --out', or mcp-context-cost's), the JSON of 'mcpcost
measure --json', or an audit JSON (one badge per config, or --config PATH
to pick one).

With no --shields or --svg, the shields.io endpoint JSON is printed:
  {"schemaVersion":1,"label":"context cost","message":"2,378 tokens",
   "color":"green","cacheSeconds":3600}
(on one line).

Flags:
  --shields FILE   write the shields.io endpoint JSON to FILE (- for stdout);
                   serve it and point https://img.shields.io/endpoint?url=
                   at it
  --svg FILE       write a self-contained SVG badge to FILE (- for stdout),
                   rendered by mcpcost: no service needed
  --link URL       where the SVG badge links (default: REPORT as given):
                   the measurement it came from, so anyone can check it
                   ('mcpcost verify')
  --label TEXT     the left-hand text (default "context cost")
  --config PATH    with an audit report, the config to badge

With an audit report of several configs and no --config, --shields and
--svg write one file per config, named FILE with the config's client and
file name before the extension (badge.svg -> badge.claude-code-mcp.svg).

Colour bands (frozen; mcp-context-cost's, as of 2026-08-16):
  < 1,000 brightgreen, 1,000-4,999 green, 5,000-14,999 yellow,
  15,000-29,999 orange, >= 30,000 red; not measured: lightgrey "unknown".
A config total that leaves out servers that could not be measured reads
"≥N tokens".

Exit status: 0 written, 2 bad input or usage.`

func runBadge(env *Env, args []string) int {
	f := newFlags("badge")
	shields := f.String("shields", "", "")
	svg := f.String("svg", "", "")
	link := f.String("link", "", "")
	label := f.String("label", badge.DefaultLabel, "")
	config := f.String("config", "", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	pos = append(pos, rest...)
	switch {
	case len(pos) != 1:
		return usageError(env, "badge", "badge takes one report, got %d", len(pos))
	case f.Set("shields") && *shields == "", f.Set("svg") && *svg == "":
		return usageError(env, "badge", "--shields and --svg need a file name (- for standard output)")
	case *shields == "-" && *svg == "-":
		return usageError(env, "badge", "only one of --shields and --svg can write to standard output")
	case strings.TrimSpace(*label) == "":
		return usageError(env, "badge", "--label needs some text")
	}
	for _, o := range []struct{ flag, file string }{{"--shields", *shields}, {"--svg", *svg}} {
		if o.file != "" && o.file != "-" {
			if err := outputFolder(o.flag, o.file); err != nil {
				return fail(env, err)
			}
		}
	}
	doc, err := loadReport(env, pos[0])
	if err != nil {
		return fail(env, err)
	}
	type target struct {
		slug  string
		title string
		e     badge.Endpoint
	}
	var targets []target
	if doc.Kind.Server() {
		if *config != "" {
			return usageError(env, "badge", "--config is for audit reports; %s is a %s", pos[0], doc.Kind.Title())
		}
		s := doc.Configs[0].Servers[0]
		e := badge.New(*label, s.Tokens, false)
		// The name is the server's own, which can be a megabyte: cut as
		// the text reports cut it.
		targets = append(targets, target{title: fmt.Sprintf("%s: %s: %s (o200k_base, methodology %s)", textsafe.Cut(s.Name, textsafe.MaxName), e.Label, e.Message, doc.MethodologyVersion), e: e})
	} else {
		var paths []string
		for _, c := range doc.Configs {
			if c.Unreadable != "" {
				continue
			}
			paths = append(paths, c.Path)
			if *config != "" && !samePath(c.Path, *config) {
				continue
			}
			tokens, lower := c.Total, false
			for _, s := range c.Servers {
				if !s.Off && s.Tokens == nil {
					lower = true
				}
			}
			e := badge.New(*label, &tokens, lower)
			title := fmt.Sprintf("%s: %s: %s (o200k_base, methodology %s)", textsafe.Cut(c.Path, textsafe.MaxName), e.Label, e.Message, doc.MethodologyVersion)
			targets = append(targets, target{slug: configSlug(c.Client, c.Path), title: textsafe.Text(title), e: e})
		}
		switch {
		case len(paths) == 0:
			return fail(env, fmt.Errorf("%s: the audit has no config to make a badge of", pos[0]))
		case len(targets) == 0:
			return fail(env, withHint(fmt.Errorf("%s: no config %s in the audit", pos[0], *config), "its configs: "+strings.Join(paths, ", ")))
		case len(targets) > 1 && (*shields == "" && *svg == "" || *shields == "-" || *svg == "-"):
			return fail(env, withHint(fmt.Errorf("%s has %d configs: pick one with --config PATH, or write one file per config with --shields FILE or --svg FILE", pos[0], len(targets)), "its configs: "+strings.Join(paths, ", ")))
		}
	}
	href := *link
	if href == "" {
		href = pos[0]
	}
	if *shields == "" && *svg == "" {
		env.Stdout.Write(targets[0].e.JSON())
		return ExitOK
	}
	seen := map[string]int{}
	for _, t := range targets {
		slug := ""
		if len(targets) > 1 {
			slug = t.slug
			if seen[slug]++; seen[slug] > 1 {
				slug = fmt.Sprintf("%s-%d", slug, seen[slug])
			}
		}
		if *shields != "" {
			if err := writeOut(env, suffixed(*shields, slug), t.e.JSON(), "shields.io endpoint JSON: "+t.e.Message); err != nil {
				return fail(env, err)
			}
		}
		if *svg != "" {
			if err := writeOut(env, suffixed(*svg, slug), t.e.SVG(href, t.title), "SVG badge: "+t.e.Message); err != nil {
				return fail(env, err)
			}
		}
	}
	return ExitOK
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && filepath.Clean(aa) == filepath.Clean(bb)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// configSlug names a config in a file name: client and file name.
func configSlug(client, path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(client+"-"+base), "-"), "-")
	if s == "" {
		s = "config"
	}
	return s
}

// suffixed puts slug before the extension of path: badge.svg ->
// badge.SLUG.svg.
func suffixed(path, slug string) string {
	if slug == "" || path == "-" {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + slug + ext
}
