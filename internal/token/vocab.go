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
	data  string   // token bytes, concatenated in rank order
	offs  []uint32 // token r is data[offs[r]:offs[r+1]]
	table []uint32 // tag<<rankBits | rank+1; 0 marks an empty slot
	mask  uint64
}

const (
	rankBits = 18 // o200k_base has 199,998 ordinary ranks
	rankMask = 1<<rankBits - 1
)

// newVocab parses the embedded length-prefixed token list and indexes it.
func newVocab(file string) (*vocab, error) {
	n := 0
	for i := 0; i < len(file); n++ {
		i += 1 + int(file[i])
	}
	if n >= rankMask {
		return nil, fmt.Errorf("vocabulary has %d tokens, more than %d", n, rankMask-1)
	}
	v := &vocab{offs: make([]uint32, n+1)}
	data := make([]byte, 0, len(file)-n)
	for i, r := 0, 0; i < len(file); r++ {
		l := int(file[i])
		if i+1+l > len(file) {
			return nil, fmt.Errorf("vocabulary truncated at token %d", r)
		}
		data = append(data, file[i+1:i+1+l]...)
		v.offs[r+1] = uint32(len(data))
		i += 1 + l
	}
	v.data = string(data)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	v.table = make([]uint32, size)
	v.mask = uint64(size - 1)
	for r := range n {
		tok := v.token(r)
		if tok == "" {
			return nil, fmt.Errorf("vocabulary token %d is empty", r)
		}
		h := hashString(tok)
		i := h & v.mask
		for v.table[i] != 0 {
			if v.token(int(v.table[i]&rankMask)-1) == tok {
				return nil, fmt.Errorf("vocabulary token %d duplicates token %d", r, v.table[i]&rankMask-1)
			}
			i = (i + 1) & v.mask
		}
		v.table[i] = tagOf(h)<<rankBits | uint32(r+1)
	}
	return v, nil
}

// token returns the bytes of rank r.
func (v *vocab) token(r int) string { return v.data[v.offs[r]:v.offs[r+1]] }

// size returns the number of ranks.
func (v *vocab) size() int { return len(v.offs) - 1 }

func tagOf(h uint64) uint32 { return uint32(h >> (64 - (32 - rankBits))) }

// rank returns the rank of s, whose hashString is h, or -1.
func (v *vocab) rank(s string, h uint64) int {
	tag := tagOf(h)
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := v.table[i]
		if e == 0 {
			return -1
		}
		if e>>rankBits == tag {
			r := int(e&rankMask) - 1
			if v.data[v.offs[r]:v.offs[r+1]] == s {
				return r
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
