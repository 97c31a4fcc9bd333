package redact

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// A Scrubber removes the known secret values of one launch, and then the
// secrets Text finds by pattern, from text a server produced. The zero
// value and nil scrub by pattern only.
//
// It reads a text once a step, whatever the number of values: Add builds
// an Aho-Corasick automaton over every form of every value, one over the
// same forms reversed, and a third over the forms that hold '*', the only
// ones a marker can complete. See [Scrubber.String] for what is replaced
// and why the work is linear in the text and the values.
type Scrubber struct {
	values []string   // longest first
	fwd    *automaton // the values
	rev    *automaton // the values, each reversed
	star   *automaton // the values that hold '*'; nil when none does
}

// testOnlySteps, when a test sets it, is given the automaton steps of
// each call of Add, String and Values.
var testOnlySteps func(n int)

func countSteps(n int) {
	if testOnlySteps != nil {
		testOnlySteps(n)
	}
}

// New returns a Scrubber for values (those shorter than MinSecret, or
// only white space, are ignored).
func New(values ...string) *Scrubber {
	s := &Scrubber{}
	s.Add(values...)
	return s
}

// Add adds secret values, in the forms a server may echo them in: as
// given and trimmed, URL-escaped and JSON-escaped.
func (s *Scrubber) Add(values ...string) {
	seen := map[string]bool{}
	for _, v := range s.values {
		seen[v] = true
	}
	add := func(v string) {
		if len(v) >= MinSecret && !seen[v] && strings.Trim(v, "*") != "" && strings.TrimSpace(v) != "" {
			seen[v] = true
			s.values = append(s.values, v)
		}
	}
	for _, v := range values {
		for _, v := range []string{v, strings.TrimSpace(v)} {
			add(v)
			add(url.QueryEscape(v))
			add(url.PathEscape(v))
			if b, err := json.Marshal(v); err == nil {
				add(string(b[1 : len(b)-1]))
			}
		}
	}
	sort.SliceStable(s.values, func(i, j int) bool { return len(s.values[i]) > len(s.values[j]) })
	if len(s.values) == 0 {
		return
	}
	steps := 0
	s.fwd = newAutomaton(s.values, &steps)
	reversed := make([]string, len(s.values))
	var star []string
	for i, v := range s.values {
		reversed[i] = reverse(v)
		if strings.Contains(v, "*") {
			star = append(star, v)
		}
	}
	s.rev = newAutomaton(reversed, &steps)
	if star != nil {
		s.star = newAutomaton(star, &steps)
	}
	countSteps(steps)
}

// String returns text without any known value and without what Text
// redacts by pattern. A known value cut short where text was clipped (its
// start before "…", "..." or the end of text, its end at the start of
// text) is removed too.
//
// The known values are replaced leftmost-longest: from the start of text,
// the longest value that starts first, then on from its end. What is left
// holds no value: every occurrence in text overlaps one replaced, and an
// occurrence made new by a marker holds a '*' of it, so it is of a value
// that holds '*', which [automaton.settle] replaces as it comes. The
// steps are: the values, Text, settle again where Text put markers, the
// clipped pieces, settle again where those were replaced.
//
// Each step but settle reads its text once: an automaton step a byte, and
// one a failure link taken; each link taken leaves a state a byte shallower
// at least, each byte read makes it a byte deeper at most, so no more
// links are taken than bytes read. settle's bound is given with it. Add's
// work is linear in the values (and their sorting).
func (s *Scrubber) String(text string) string {
	if s == nil || s.fwd == nil {
		return Text(text)
	}
	steps := 0
	defer func() { countSteps(steps) }()
	known := s.known(text, &steps)
	text = Text(known)
	if text != known && s.star != nil {
		text = s.star.settle(text, &steps)
	}
	cut := s.cut(text, &steps)
	if cut != text && s.star != nil {
		cut = s.star.settle(cut, &steps)
	}
	return cut
}

// Values returns text with every known value (in each form Add keeps)
// replaced by Marker, and nothing else changed: what is kept of a
// server's own definitions, where a pattern is no secret.
func (s *Scrubber) Values(text string) string {
	if s == nil || s.fwd == nil {
		return text
	}
	steps := 0
	text = s.known(text, &steps)
	countSteps(steps)
	return text
}

// Strings scrubs each element of list in place and returns it.
func (s *Scrubber) Strings(list []string) []string {
	for i, v := range list {
		list[i] = s.String(v)
	}
	return list
}

// known replaces the known values of text, leftmost-longest, and then
// those the markers completed. The longest value that starts at each
// place is what the reversed automaton matches there, reading text from
// its end: one step a byte and one a failure link, each of which makes
// the match shorter than the bytes read made it longer.
func (s *Scrubber) known(text string, steps *int) string {
	type match struct{ at, n int32 }
	var found []match // from the end of text
	st := int32(0)
	for i := len(text) - 1; i >= 0; i-- {
		st = s.rev.next(st, text[i], steps)
		if n := s.rev.match[st]; n > 0 {
			found = append(found, match{int32(i), n})
		}
	}
	if found == nil {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	done := 0 // text[:done] is in b
	for k := len(found) - 1; k >= 0; k-- {
		if at := int(found[k].at); at >= done {
			b.WriteString(text[done:at])
			b.WriteString(Marker)
			done = at + int(found[k].n)
		}
	}
	b.WriteString(text[done:])
	if s.star == nil {
		return b.String()
	}
	return s.star.settle(b.String(), steps)
}

// minPiece is the length under which the end of a known value at the start
// of a text is left: a secret's last letters are often a word.
const minPiece = 6

// cut removes the pieces of known values that clipping left: a value's
// start before an ellipsis or at the end of text (the longest start of a
// value that ends there, of MinSecret bytes or more, is the depth of the
// automaton's state there), a value's end at the start of text (the
// depth of the reversed automaton's state, after reading text's first
// bytes from the last; of minPiece bytes or more). Text holds no whole
// value here, so each is a proper start or end.
func (s *Scrubber) cut(text string, steps *int) string {
	st := int32(0)
	for i := min(len(text), len(s.values[0])-1) - 1; i >= 0; i-- {
		st = s.rev.next(st, text[i], steps)
	}
	if k := int(s.rev.depth[st]); k >= minPiece {
		text = Marker + text[k:]
	}
	var b strings.Builder
	done := 0 // text[:done] is in b
	st = 0
	for i := 0; ; i++ {
		if i == len(text) || text[i] == '.' && strings.HasPrefix(text[i:], "...") || text[i] == "…"[0] && strings.HasPrefix(text[i:], "…") {
			if k := int(s.fwd.depth[st]); k >= MinSecret && i-k >= done {
				b.WriteString(text[done : i-k])
				b.WriteString(Marker)
				done = i
			}
		}
		if i == len(text) {
			break
		}
		st = s.fwd.next(st, text[i], steps)
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// reverse reverses the bytes of s.
func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}
