package redact

import (
	"regexp"
	"sync"
)

// lazyRegexp returns expr compiled on first use, so that a command that
// does not use it does not compile it as the process starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
