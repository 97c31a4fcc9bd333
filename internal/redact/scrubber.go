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
// A value is removed wherever it is, or, for a launch's values that are no
// credentials ([Named.Credential]: "info", "true", a path), only where it
// stands as a whole word: where the letters, digits, _ and - it starts
// and ends with are not part of a longer run of them ("info" goes from
// "level info" and "(info).", not from "information" nor "info-x").
//
// It reads a text once a step, whatever the number of values: Add builds
// an Aho-Corasick automaton over every form of every value, one over the
// same forms reversed, and a third over the forms that hold '*', the only
// ones a marker can complete. See [Scrubber.String] for what is replaced
// and why the work is linear in the text and the values.
type Scrubber struct {
	values  []string   // removed wherever they are, longest first
	words   []string   // removed where they are whole words, longest first; none is in values
	longest int        // the length of the longest value or word
	fwd     *automaton // the values and words
	rev     *automaton // the values and words, each reversed
	star    *automaton // the values and words that hold '*'; nil when none does
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
	s.add(values, false)
	s.build()
}

// add adds values, in the forms Add keeps, to the values or, when whole,
// to the words; a value is never both, and a value wins.
func (s *Scrubber) add(values []string, whole bool) {
	in := map[string]bool{}
	for _, v := range s.values {
		in[v] = true
	}
	word := map[string]bool{}
	for _, v := range s.words {
		word[v] = true
	}
	add := func(v string) {
		switch {
		case len(v) < MinSecret || strings.Trim(v, "*") == "" || strings.TrimSpace(v) == "" || in[v]:
		case whole && !word[v]:
			word[v] = true
			s.words = append(s.words, v)
		case !whole:
			in[v] = true
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
	s.words = slices.DeleteFunc(s.words, func(v string) bool { return in[v] })
	byLength := func(list []string) {
		sort.SliceStable(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	}
	byLength(s.values)
	byLength(s.words)
}

// build builds the automata of the values and words.
func (s *Scrubber) build() {
	s.fwd, s.rev, s.star, s.longest = nil, nil, nil, 0
	if len(s.values)+len(s.words) == 0 {
		return
	}
	var fwd, rev, star [][]symbol
	add := func(v string, whole bool) {
		p := pattern(v, whole)
		r := slices.Clone(p)
		slices.Reverse(r)
		fwd, rev = append(fwd, p), append(rev, r)
		if strings.Contains(v, "*") {
			star = append(star, p)
		}
		s.longest = max(s.longest, len(v))
	}
	for _, v := range s.values {
		add(v, false)
	}
	for _, v := range s.words {
		add(v, true)
	}
	steps := 0
	s.fwd, s.rev = newAutomaton(fwd, &steps), newAutomaton(rev, &steps)
	if star != nil {
		s.star = newAutomaton(star, &steps)
	}
	countSteps(steps)
}

// String returns text without any known value and without what Text
// redacts by pattern. A known value cut short where text was clipped (its
// start before "…", "..." or the end of text, its end at the start of
// text) is removed too; a word's, only where what is left of it starts
// (or ends) a word.
//
// The known values are replaced leftmost-longest: from the start of text,
// the longest value that starts first (a word where it stands whole),
// then on from its end. What is left holds no value: every occurrence in
// text overlaps one replaced, and an occurrence made new by a marker
// holds a '*' of it, so it is of a value that holds '*', which
// [automaton.settle] replaces as it comes. (A word a marker leaves whole,
// as "***info" does "info", is not one the text held, and is kept: it is
// no credential.) The steps are: the values, Text, settle again where
// Text put markers, the clipped pieces, settle again where those were
// replaced.
//
// Each step but settle reads its text once: an automaton step a byte or
// edge, and one a failure link taken; each link taken leaves a state a
// symbol shallower at least, each symbol read makes it one deeper at
// most, so no more links are taken than symbols read, and there are two
// symbols a byte at most. settle's bound is given with it. Add's work is
// linear in the values (and their sorting).
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
// replaced by Marker, each word where it stands whole, and nothing else
// changed: what is kept of a server's own definitions, where a pattern is
// no secret.
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
// those the markers completed.
func (s *Scrubber) known(text string, steps *int) string {
	found := s.matches(text, steps)
	if found == nil {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	done := 0 // text[:done] is in b
	for _, m := range found {
		b.WriteString(text[done:m.start])
		b.WriteString(Marker)
		done = m.end
	}
	b.WriteString(text[done:])
	if s.star == nil {
		return b.String()
	}
	return s.star.settle(b.String(), steps)
}

// matches returns where the known values of text are, leftmost-longest,
// in order. The longest value that starts at each place is what the
// reversed automaton matches there, reading text from its end: after the
// byte there, or the edge before it for a word that starts with a word's
// byte.
func (s *Scrubber) matches(text string, steps *int) []span {
	var found []span // from the end of text: where the longest value starts, and its end
	st := int32(0)
	see := func(at int) {
		m := s.rev.match[st]
		if m == 0 {
			return
		}
		end := at + int(s.rev.bytes[m])
		if k := len(found) - 1; k >= 0 && found[k].start == at {
			found[k].end = max(found[k].end, end)
		} else {
			found = append(found, span{at, end})
		}
	}
	for p := len(text); p >= 0; p-- {
		if edgeAt(text, p) {
			st = s.rev.next(st, edge, steps)
			see(p)
		}
		if p > 0 {
			st = s.rev.next(st, symbol(text[p-1]), steps)
			see(p - 1)
		}
	}
	slices.Reverse(found)
	done, k := 0, 0
	for _, m := range found {
		if m.start >= done {
			found[k], k, done = m, k+1, m.end
		}
	}
	if k == 0 {
		return nil
	}
	return found[:k]
}

// minPiece is the length under which the end of a known value at the start
// of a text is left: a secret's last letters are often a word.
const minPiece = 6

// cut removes the pieces of known values that clipping left: a value's
// start before an ellipsis or at the end of text (the longest start of a
// value that ends there, of MinSecret bytes or more: the bytes of the
// automaton's state there, before the edge), a value's end at the start
// of text (the bytes of the reversed automaton's state, after reading
// text's first bytes from the last; of minPiece bytes or more). Text
// holds no whole value here, so each is a proper start or end.
func (s *Scrubber) cut(text string, steps *int) string {
	st := int32(0)
	for p := min(len(text), s.longest-1); p > 0; p-- {
		if edgeAt(text, p) {
			st = s.rev.next(st, edge, steps)
		}
		st = s.rev.next(st, symbol(text[p-1]), steps)
	}
	if k := int(s.rev.bytes[st]); k >= minPiece {
		text = Marker + text[k:]
	}
	var b strings.Builder
	done := 0 // text[:done] is in b
	st = 0
	for p := 0; p <= len(text); p++ {
		if p == len(text) || text[p] == '.' && strings.HasPrefix(text[p:], "...") || text[p] == "…"[0] && strings.HasPrefix(text[p:], "…") {
			if k := int(s.fwd.bytes[st]); k >= MinSecret && p-k >= done {
				b.WriteString(text[done : p-k])
				b.WriteString(Marker)
				done = p
			}
		}
		if edgeAt(text, p) {
			st = s.fwd.next(st, edge, steps)
		}
		if p < len(text) {
			st = s.fwd.next(st, symbol(text[p]), steps)
		}
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}
