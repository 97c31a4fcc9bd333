// Package token counts tokens the way the models' tokenizers do.
//
// The headline encoding is o200k_base, counted exactly as OpenAI's tiktoken
// counts it (encode_ordinary): text that looks like a special token (such as
// "<|endoftext|>") is ordinary text. The counter never builds a token list:
// a hand-written pre-tokenizer splits the text into pieces, each piece is
// looked up in the vocabulary or byte-pair merged just far enough to count its
// tokens, and the counts of short pieces and of pieces that need merging are
// cached per goroutine.
//
// The vocabulary is embedded (o200k_base.tokens) and indexed on first use,
// which takes a few milliseconds.
//
// Input is expected to be valid UTF-8; the canonical JSON the measurements
// count always is. Invalid bytes are counted as github.com/tiktoken-go/tokenizer
// counts them by default: each one as U+FFFD.
//
// Differences from github.com/tiktoken-go/tokenizer v0.10.0: its generated
// matcher for the alternative `\s*[\r\n]+` backtracks to the first line break
// of a whitespace run instead of the last, so it splits "\n \n" into two
// tokens where tiktoken has one. This package follows tiktoken.
package token

import "sync"

// Encoding is the name of the headline encoding.
const Encoding = "o200k_base"

// A Counter counts tokens. Implementations are safe for concurrent use.
type Counter interface {
	// Count returns the number of tokens in text, encoded as ordinary text.
	Count(text string) int
}

// A BytesCounter also counts a byte slice without copying it. The counter
// returned by O200k implements it.
type BytesCounter interface {
	Counter
	CountBytes(b []byte) int
}

var (
	o200kOnce sync.Once
	o200k     *counter
)

// O200k returns the shared o200k_base counter. The first call builds its
// tables.
func O200k() Counter {
	return o200kCounter()
}

func o200kCounter() *counter {
	o200kOnce.Do(func() {
		c, err := newCounter()
		if err != nil {
			panic("token: o200k_base: " + err.Error()) // embedded data; cannot fail
		}
		o200k = c
	})
	return o200k
}
