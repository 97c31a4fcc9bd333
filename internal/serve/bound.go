package serve

import (
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// A result carries each string the store holds (a model, a project path,
// a session id, a server or tool name, all of them copied from
// transcripts) cut to maxName runes, and each sentence built from them (a
// finding's title and recommendation, a note) cut to maxProse, each with
// the "… (N bytes)" of [textsafe.Cut]: a transcript can hold a name of a
// megabyte, and an answer is read by a model, whose context it fills.
const (
	maxName  = textsafe.MaxName
	maxProse = textsafe.MaxProse
	// maxListed is how many names a note or a row lists; the rest are
	// counted.
	maxListed = textsafe.MaxListed
)

// name bounds a string from the store.
func name(s string) string { return textsafe.Cut(s, maxName) }

// prose bounds a sentence that may quote strings from the store.
func prose(s string) string { return textsafe.Cut(s, maxProse) }

// names bounds each of list, in place, and returns it.
func names(list []string) []string {
	for i, s := range list {
		list[i] = name(s)
	}
	return list
}

// proses bounds each of list, in place, and returns it.
func proses(list []string) []string {
	for i, s := range list {
		list[i] = prose(s)
	}
	return list
}

// joinNames lists the first maxListed of list, each bounded, and counts
// the rest: see [textsafe.CutList].
func joinNames(list []string) string { return textsafe.CutList(list) }
