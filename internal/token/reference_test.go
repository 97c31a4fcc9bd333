package token

import (
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The reference implementation, github.com/tiktoken-go/tokenizer, for
// differential tests and benchmarks. It is not linked into the binary.

var (
	refOnce  sync.Once
	refCodec *codec.Codec
)

func refO200k(tb testing.TB) *codec.Codec {
	tb.Helper()
	refOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			panic(err)
		}
		refCodec = c.(*codec.Codec)
	})
	return refCodec
}

func refCount(tb testing.TB, s string) int {
	n, err := refO200k(tb).Count(s)
	if err != nil {
		tb.Fatalf("reference count: %v", err)
	}
	return n
}
