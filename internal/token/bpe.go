package token

import "math"

const noRank = math.MaxUint32

// scanMax is the longest piece merged with the quadratic scan on stack
// arrays; longer pieces use the heap.
const scanMax = 128

// mergeCount returns the number of tokens byte-pair merging gives piece:
// repeatedly merge the adjacent pair whose concatenation has the lowest
// rank, the leftmost one among equals, until no pair is in the vocabulary.
func (c *counter) mergeCount(piece string, st *state) int {
	if len(piece) > scanMax {
		return c.mergeCountHeap(piece, st)
	}
	var (
		pos   [scanMax + 1]int32  // part boundaries
		ranks [scanMax + 1]uint32 // ranks[i]: rank of merging part i with part i+1
	)
	n := len(piece) + 1 // boundaries
	for i := range n {
		pos[i] = int32(i)
	}
	pairRank := func(i int) uint32 {
		// the part pair starting at boundary i spans pos[i]..pos[i+2]
		if i+2 >= n {
			return noRank
		}
		s := piece[pos[i]:pos[i+2]]
		if r := c.v.rank(s, hashString(s)); r >= 0 {
			return uint32(r)
		}
		return noRank
	}
	for i := range n - 1 {
		ranks[i] = pairRank(i)
	}
	for n > 2 {
		minRank, minIdx := uint32(noRank), -1
		for i, r := range ranks[:n-2] {
			if r < minRank {
				minRank, minIdx = r, i
			}
		}
		if minIdx < 0 {
			break
		}
		// remove boundary minIdx+1
		copy(pos[minIdx+1:n-1], pos[minIdx+2:n])
		copy(ranks[minIdx+1:n-1], ranks[minIdx+2:n])
		n--
		ranks[minIdx] = pairRank(minIdx)
		if minIdx > 0 {
			ranks[minIdx-1] = pairRank(minIdx - 1)
		}
	}
	return n - 1
}

// mergeNode is a part boundary in the linked list of mergeCountHeap. rank is
// the rank of the token formed by merging this part with the next one.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

// keepScratch is the most merge nodes a pooled state keeps between calls.
const keepScratch = 1 << 16

type mergeCandidate struct {
	rank uint32
	off  int32
}

// mergeCountHeap gives the same count as the scan in O(n log n): boundaries
// form a linked list and candidate merges sit in a min-heap ordered by rank,
// then by offset, with stale entries skipped when popped.
func (c *counter) mergeCountHeap(piece string, st *state) int {
	n := int32(len(piece))
	if cap(st.nodes) < int(n)+1 {
		st.nodes = make([]mergeNode, n+1)
	}
	nodes := st.nodes[:n+1]
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		s := piece[i:k]
		if r := c.v.rank(s, hashString(s)); r >= 0 {
			return uint32(r)
		}
		return noRank
	}
	h := st.heap[:0]
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
	parts := int(n)
	for len(h) > 0 {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		heapDown(h, 0)
		i := top.off
		if nodes[i].rank != top.rank {
			continue // stale
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		parts--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != noRank {
				h = append(h, mergeCandidate{nodes[b].rank, b})
				heapUp(h, len(h)-1)
			}
		}
	}
	st.heap = h[:0]
	if len(nodes) > keepScratch {
		// a huge piece: let its scratch go rather than keep it in the pool
		st.nodes, st.heap = nil, nil
	}
	return parts
}

func candLess(a, b mergeCandidate) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.off < b.off
}

func heapUp(h []mergeCandidate, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !candLess(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func heapDown(h []mergeCandidate, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && candLess(h[r], h[l]) {
			l = r
		}
		if !candLess(h[l], h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}
