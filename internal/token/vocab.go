package token

import (
	_ "embed"
	"fmt"
)

// o200kTokens holds the o200k_base vocabulary in rank order: for each rank,
// one length byte followed by the token's bytes. TestVocabularyFile checks it
// against github.com/tiktoken-go/tokenizer and regenerates it with -update.
//
//go:embed o200k_base.tokens
var o200kTokens string

// vocab maps token bytes to ranks with an open-addressing hash table built
// once from the embedded vocabulary.
type vocab struct {
	data  string   // the embedded file
	toks  []uint32 // token r is data[toks[r]>>8:][:toks[r]&0xff]
	table []uint64 // see slot; 0 marks an empty slot
	mask  uint64
}

const (
	rankBits = 18 // o200k_base has 199,998 ordinary ranks
	rankMask = 1<<rankBits - 1
)

// newVocab indexes a length-prefixed token list in rank order.
func newVocab(file string) (*vocab, error) {
	if len(file) >= 1<<22 {
		return nil, fmt.Errorf("vocabulary file has %d bytes, more than %d", len(file), 1<<22-1)
	}
	n := 0
	for i := 0; i < len(file); n++ {
		i += 1 + int(file[i])
	}
	if n >= rankMask {
		return nil, fmt.Errorf("vocabulary has %d tokens, more than %d", n, rankMask-1)
	}
	size, sizeBits := 1, 0
	for size < 2*n {
		size <<= 1
		sizeBits++
	}
	v := &vocab{data: file, toks: make([]uint32, n), table: make([]uint64, size), mask: uint64(size - 1)}
	// Hash every token, then insert them in the order of their home slots,
	// so that the writes sweep the table instead of jumping around it.
	hashes := make([]uint64, n)
	const bucketBits = 10
	shift := max(sizeBits-bucketBits, 0)
	var starts [1<<bucketBits + 1]int32
	for i, r := 0, 0; i < len(file); r++ {
		l := int(file[i])
		if l == 0 {
			return nil, fmt.Errorf("vocabulary token %d is empty", r)
		}
		if i+1+l > len(file) {
			return nil, fmt.Errorf("vocabulary truncated at token %d", r)
		}
		v.toks[r] = uint32(i+1)<<8 | uint32(l)
		h := hashString(file[i+1 : i+1+l])
		hashes[r] = h
		starts[(h&v.mask)>>shift+1]++
		i += 1 + l
	}
	for b := 1; b < len(starts); b++ {
		starts[b] += starts[b-1]
	}
	order := make([]int32, n)
	for r, h := range hashes {
		b := (h & v.mask) >> shift
		order[starts[b]] = int32(r)
		starts[b]++
	}
	const match = 0xffff<<48 | 0xff<<rankBits
	for _, r := range order {
		t := v.toks[r]
		h := hashes[r]
		e := slot(h, int(t>>8), int(t&0xff), int(r))
		j := h & v.mask
		for v.table[j] != 0 {
			if v.table[j]&match == e&match && v.token(int(v.table[j]&rankMask)-1) == v.token(int(r)) {
				return nil, fmt.Errorf("vocabulary tokens %d and %d are the same", r, v.table[j]&rankMask-1)
			}
			j = (j + 1) & v.mask
		}
		v.table[j] = e
	}
	return v, nil
}

// token returns the bytes of rank r.
func (v *vocab) token(r int) string {
	t := v.toks[r]
	o := int(t >> 8)
	return v.data[o : o+int(t&0xff)]
}

// size returns the number of ranks.
func (v *vocab) size() int { return len(v.toks) }

// slot packs a table entry: the rank plus one (18 bits), the token's
// length (8 bits) and offset in the file (22 bits), and 16 bits of its hash,
// so that a lookup reads the file only when length and hash bits agree.
func slot(h uint64, off, l, r int) uint64 {
	return h>>48<<48 | uint64(off)<<26 | uint64(l)<<rankBits | uint64(r+1)
}

// maxTokenLen is the longest token a slot's length field can hold.
const maxTokenLen = 255

// rank returns the rank of s, whose hashString is h, or -1.
func (v *vocab) rank(s string, h uint64) int {
	if len(s) > maxTokenLen {
		return -1
	}
	want := h>>48<<48 | uint64(len(s))<<rankBits
	const match = 0xffff<<48 | 0xff<<rankBits
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := v.table[i]
		if e == 0 {
			return -1
		}
		if e&match == want {
			o := int(e >> 26 & (1<<22 - 1))
			if v.data[o:o+len(s)] == s {
				return int(e&rankMask) - 1
			}
		}
	}
}

// hashString is a fast non-cryptographic hash for short byte strings.
func hashString(s string) uint64 {
	const (
		k0 = 0x9e3779b97f4a7c15
		k1 = 0xbf58476d1ce4e5b9
		k2 = 0x94d049bb133111eb
	)
	h := uint64(len(s)) * k0
	for len(s) > 8 {
		h = (h ^ le64(s)) * k1
		h ^= h >> 31
		s = s[8:]
	}
	var t uint64
	switch {
	case len(s) >= 4:
		t = uint64(le32(s)) | uint64(le32(s[len(s)-4:]))<<32
	case len(s) > 0:
		t = uint64(s[0]) | uint64(s[len(s)>>1])<<8 | uint64(s[len(s)-1])<<16
	}
	h = (h ^ t) * k2
	h ^= h >> 32
	h *= k0
	h ^= h >> 29
	return h
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
