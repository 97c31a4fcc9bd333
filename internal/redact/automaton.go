package redact

import "slices"

// A symbol is what the automata read: a byte, or edge.
type symbol = uint16

// edge stands, in what the automata read, where a word starts or ends:
// between a byte of a word ([isWord]) and one of none, and at an end of
// text next to a word's byte. It matches nothing else, so that a value
// removed as a whole word is matched with an edge before and after it
// ([pattern]).
const edge symbol = 256

// isWord reports whether c is a byte of a word: a letter, a digit, _ or -.
func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// edgeAt reports whether text has an edge before text[p] (at its end for
// p == len(text)).
func edgeAt(text string, p int) bool {
	switch {
	case text == "":
		return false
	case p == 0:
		return isWord(text[0])
	case p == len(text):
		return isWord(text[p-1])
	}
	return isWord(text[p-1]) != isWord(text[p])
}

// pattern is what the automata match for v: its bytes with an edge
// wherever a word starts or ends between two of them, and, for a value
// removed only as a whole word, an edge before it and after it where it
// starts and ends with a word's byte (the word it starts or ends then
// goes no further).
func pattern(v string, whole bool) []symbol {
	p := make([]symbol, 0, len(v)+4)
	if whole && isWord(v[0]) {
		p = append(p, edge)
	}
	for i := 0; i < len(v); i++ {
		if i > 0 && isWord(v[i-1]) != isWord(v[i]) {
			p = append(p, edge)
		}
		p = append(p, symbol(v[i]))
	}
	if whole && isWord(v[len(v)-1]) {
		p = append(p, edge)
	}
	return p
}

// An automaton is the Aho-Corasick automaton of a set of patterns: a trie
// of them, each node (the symbols on the path to it) with a failure link
// to the longest proper end of its symbols that is a node too.
//
// The nodes are numbered breadth first from the root, 0, so that the
// children of a node are next to each other, in the order of their
// symbols.
type automaton struct {
	label []symbol // the symbol on the edge into each node
	first []int32  // the first child of each node
	kids  []uint16 // how many children each node has
	fail  []int32  // each node's failure link
	depth []int32  // how many symbols each node has
	bytes []int32  // how many of them are bytes
	match []int32  // the node of the longest pattern that ends each node's symbols, or 0
	root  [edge + 1]int32
	used  [edge + 1]bool // the symbols the patterns hold
}

// newAutomaton builds the automaton of patterns (each a symbol long at
// least), in steps linear in their total length.
func newAutomaton(patterns [][]symbol, steps *int) *automaton {
	patterns = slices.Clone(patterns)
	slices.SortFunc(patterns, slices.Compare)
	patterns = slices.CompactFunc(patterns, slices.Equal)
	// The trie, in the order patterns make it. As they come sorted, a
	// node's child on the next pattern's symbol, when it has one, is its
	// last.
	total := 1
	for _, p := range patterns {
		total += len(p)
	}
	label := append(make([]symbol, 0, total), 0)
	first := append(make([]int32, 0, total), -1)
	last := append(make([]int32, 0, total), -1)
	next := append(make([]int32, 0, total), -1)
	end := append(make([]bool, 0, total), false)
	for _, p := range patterns {
		n := int32(0)
		for _, c := range p {
			*steps++
			if l := last[n]; l >= 0 && label[l] == c {
				n = l
				continue
			}
			k := int32(len(label))
			label, end = append(label, c), append(end, false)
			first, last, next = append(first, -1), append(last, -1), append(next, -1)
			if last[n] >= 0 {
				next[last[n]] = k
			} else {
				first[n] = k
			}
			last[n], n = k, k
		}
		end[n] = true
	}
	// Numbered breadth first.
	size := len(label)
	a := &automaton{
		label: make([]symbol, size), first: make([]int32, size), kids: make([]uint16, size),
		fail: make([]int32, size), depth: make([]int32, size), bytes: make([]int32, size),
		match: make([]int32, size),
	}
	order := make([]int32, 1, size) // the trie's node of each new number
	for q := 0; q < size; q++ {
		*steps++
		a.first[q] = int32(len(order))
		for k := first[order[q]]; k >= 0; k = next[k] {
			j := len(order)
			order = append(order, k)
			a.label[j], a.depth[j], a.bytes[j] = label[k], a.depth[q]+1, a.bytes[q]
			if label[k] != edge {
				a.bytes[j]++
			}
			a.kids[q]++
		}
	}
	for j := a.first[0]; j < a.first[0]+int32(a.kids[0]); j++ {
		a.root[a.label[j]] = j
	}
	for j := 1; j < size; j++ {
		a.used[a.label[j]] = true
	}
	// Failure links, breadth first: a node's is found from its parent's,
	// and along one pattern's path they grow by a symbol a symbol at most.
	for q := int32(0); q < int32(size); q++ {
		for j := a.first[q]; j < a.first[q]+int32(a.kids[q]); j++ {
			if q != 0 {
				a.fail[j] = a.next(a.fail[q], a.label[j], steps)
			}
			if end[order[j]] {
				a.match[j] = j
			} else {
				a.match[j] = a.match[a.fail[j]]
			}
		}
	}
	return a
}

// child returns the child of node s on c, or 0.
func (a *automaton) child(s int32, c symbol) int32 {
	if s == 0 {
		return a.root[c]
	}
	lo, hi := a.first[s], a.first[s]+int32(a.kids[s])
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		switch l := a.label[m]; {
		case l == c:
			return m
		case l < c:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0
}

// next returns the state after s reads c: the child of s on c, else that
// of its failure link, and so on to the root.
func (a *automaton) next(s int32, c symbol, steps *int) int32 {
	*steps++
	if !a.used[c] {
		return 0
	}
	for s != 0 {
		if t := a.child(s, c); t != 0 {
			return t
		}
		s = a.fail[s]
		*steps++
	}
	return a.root[c]
}

// settle replaces, in text, each occurrence of the automaton's patterns by
// Marker, and each occurrence the markers make, until none is left. It
// reads text once, keeping what it has written, with its edges, and the
// state after each symbol: on a match, the match's symbols and states are
// taken back and Marker is read in their place, from the state before
// them.
//
// It ends, in linear work. Each pattern holds a byte other than '*' (Add
// keeps no value made of stars) and Marker holds none, so each
// replacement leaves one such byte fewer in what is written and left to
// read: there are len(text) replacements at most, len(text) ×
// (1+len(Marker)) bytes read at most (and an edge before each, and one at
// the end once a replacement), and no more taken back. A symbol read from
// a state taken back may walk failure links again: the state a walk ends
// in is kept for each state it passed, on that symbol, so that a walk
// passes a state on a symbol once at most, and the failure links taken
// are at most the automaton's nodes times the symbols its patterns hold.
func (a *automaton) settle(text string, steps *int) string {
	out := make([]byte, 0, len(text)+len(Marker))
	syms := make([]symbol, 0, len(text)+len(Marker))
	states := make([]int32, 1, len(text)+len(Marker)+1)
	var memo map[uint64]int32
	// read reads c after what is written, and takes back a match it ends.
	read := func(c symbol) (matched bool) {
		st := a.nextMemo(states[len(states)-1], c, &memo, steps)
		syms, states = append(syms, c), append(states, st)
		if c != edge {
			out = append(out, byte(c))
		}
		m := a.match[st]
		if m == 0 {
			return false
		}
		n := int(a.depth[m])
		*steps += n
		for k := len(syms) - n; k < len(syms); k++ {
			if syms[k] != edge {
				out = out[:len(out)-1]
			}
		}
		syms, states = syms[:len(syms)-n], states[:len(states)-n]
		if k := len(syms) - 1; k >= 0 && syms[k] == edge {
			// The edge before the bytes taken back: the next byte tells
			// whether there is one.
			syms, states = syms[:k], states[:k+1]
		}
		return true
	}
	var pending []byte // read before text, from the end
	marker := func() {
		for j := len(Marker) - 1; j >= 0; j-- {
			pending = append(pending, Marker[j])
		}
	}
	for i := 0; ; {
		var c byte
		switch {
		case len(pending) > 0:
			c = pending[len(pending)-1]
			pending = pending[:len(pending)-1]
		case i < len(text):
			c = text[i]
			i++
		default:
			// The edge at the end, after a word.
			if len(out) > 0 && isWord(out[len(out)-1]) && read(edge) {
				marker()
				continue
			}
			return string(out)
		}
		if len(out) == 0 && isWord(c) || len(out) > 0 && isWord(out[len(out)-1]) != isWord(c) {
			if read(edge) {
				pending = append(pending, c)
				marker()
				continue
			}
		}
		if read(symbol(c)) {
			marker()
		}
	}
}

// nextMemo is next, with the end of each walk along failure links kept in
// memo for the states it passed.
func (a *automaton) nextMemo(s int32, c symbol, memo *map[uint64]int32, steps *int) int32 {
	*steps++
	if !a.used[c] {
		return 0
	}
	key := func(s int32) uint64 { return uint64(s)<<9 | uint64(c) }
	t, u := int32(0), s
	for {
		if t = a.child(u, c); t != 0 || u == 0 {
			break
		}
		if v, ok := (*memo)[key(u)]; ok {
			t = v
			break
		}
		u = a.fail[u]
		*steps++
	}
	if u != s && *memo == nil {
		*memo = map[uint64]int32{}
	}
	for w := s; w != u; w = a.fail[w] {
		(*memo)[key(w)] = t
	}
	return t
}
