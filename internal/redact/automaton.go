package redact

import "slices"

// An automaton is the Aho-Corasick automaton of a set of strings: a trie
// of them, each node (the string on the path to it) with a failure link
// to the longest proper end of its string that is a node too.
//
// The nodes are numbered breadth first from the root, 0, so that the
// children of a node are next to each other, in the order of their bytes.
type automaton struct {
	label []byte   // the byte on the edge into each node
	first []int32  // the first child of each node
	kids  []uint16 // how many children each node has
	fail  []int32  // each node's failure link
	depth []int32  // the length of each node's string
	match []int32  // the length of the longest string of the set that ends each node's, or 0
	root  [256]int32
	used  [256]bool // the bytes the strings hold
}

// newAutomaton builds the automaton of values (each at least a byte
// long), in steps linear in their total length.
func newAutomaton(values []string, steps *int) *automaton {
	values = slices.Clone(values)
	slices.Sort(values)
	values = slices.Compact(values)
	// The trie, in the order values make it. As they come sorted, a
	// node's child on the next value's byte, when it has one, is its last.
	var (
		label             = []byte{0}
		first, last, next = []int32{-1}, []int32{-1}, []int32{-1}
		end               = []bool{false}
	)
	for _, v := range values {
		n := int32(0)
		for i := 0; i < len(v); i++ {
			*steps++
			if l := last[n]; l >= 0 && label[l] == v[i] {
				n = l
				continue
			}
			k := int32(len(label))
			label, end = append(label, v[i]), append(end, false)
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
		label: make([]byte, size), first: make([]int32, size), kids: make([]uint16, size),
		fail: make([]int32, size), depth: make([]int32, size), match: make([]int32, size),
	}
	order := make([]int32, 1, size) // the trie's node of each new number
	for q := 0; q < size; q++ {
		*steps++
		a.first[q] = int32(len(order))
		for k := first[order[q]]; k >= 0; k = next[k] {
			j := len(order)
			order = append(order, k)
			a.label[j], a.depth[j] = label[k], a.depth[q]+1
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
	// and along one value's path they grow by a byte at most a byte.
	for q := int32(0); q < int32(size); q++ {
		for j := a.first[q]; j < a.first[q]+int32(a.kids[q]); j++ {
			if q != 0 {
				a.fail[j] = a.next(a.fail[q], a.label[j], steps)
			}
			if end[order[j]] {
				a.match[j] = a.depth[j]
			} else {
				a.match[j] = a.match[a.fail[j]]
			}
		}
	}
	return a
}

// child returns the child of node s on c, or 0.
func (a *automaton) child(s int32, c byte) int32 {
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
func (a *automaton) next(s int32, c byte, steps *int) int32 {
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

// settle replaces, in text, each occurrence of the automaton's strings by
// Marker, and each occurrence the markers make, until none is left. It
// reads text once, keeping what it has written with the state after
// each byte: on a match, the match's bytes and states are taken back and
// Marker is read in their place, from the state before them.
//
// It ends, in linear work. Each string holds a byte other than '*' (Add
// keeps no value made of stars) and Marker holds none, so each
// replacement leaves one such byte fewer in what is written and left to
// read: there are len(text) replacements at most, len(text) ×
// (1+len(Marker)) bytes read at most, and no more taken back. A byte read
// from a state taken back may walk failure links again: the state a walk
// ends in is kept for each state it passed, on that byte, so that a walk
// passes a state on a byte once at most, and the failure links taken are
// at most the automaton's nodes times the distinct bytes its strings hold.
func (a *automaton) settle(text string, steps *int) string {
	out := make([]byte, 0, len(text)+len(Marker))
	states := make([]int32, 1, len(text)+len(Marker)+1)
	var pending []byte // read before text, from the end
	var memo map[uint64]int32
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
			return string(out)
		}
		st := a.nextMemo(states[len(states)-1], c, &memo, steps)
		out, states = append(out, c), append(states, st)
		if n := int(a.match[st]); n > 0 {
			out, states = out[:len(out)-n], states[:len(states)-n]
			for j := len(Marker) - 1; j >= 0; j-- {
				pending = append(pending, Marker[j])
			}
			*steps += n
		}
	}
}

// nextMemo is next, with the end of each walk along failure links kept in
// memo for the states it passed.
func (a *automaton) nextMemo(s int32, c byte, memo *map[uint64]int32, steps *int) int32 {
	*steps++
	if !a.used[c] {
		return 0
	}
	key := func(s int32) uint64 { return uint64(s)<<8 | uint64(c) }
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
