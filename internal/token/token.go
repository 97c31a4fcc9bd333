// Package token counts tokens the way the models' tokenizers do.
//
// The headline encoding is o200k_base. Text that looks like a special token
// (such as "<|endoftext|>") is counted as ordinary text, as tiktoken's
// encode_ordinary does.
package token

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding is the name of the headline encoding.
const Encoding = "o200k_base"

// A Counter counts tokens. Implementations are safe for concurrent use.
type Counter interface {
	// Count returns the number of tokens in text, encoded as ordinary text.
	Count(text string) int
}

var (
	o200kOnce sync.Once
	o200k     Counter
)

// O200k returns the shared o200k_base counter.
func O200k() Counter {
	o200kOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			panic("token: o200k_base: " + err.Error()) // compiled in; cannot fail
		}
		o200k = reference{c.(*codec.Codec)}
	})
	return o200k
}

// reference counts with github.com/tiktoken-go/tokenizer.
type reference struct{ c *codec.Codec }

func (r reference) Count(text string) int {
	n, _ := r.c.Count(text)
	return n
}
