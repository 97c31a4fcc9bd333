//go:build !unix

package serve

import "testing"

func secondUserReads(t *testing.T, file string) {
	t.Log("the token file is read as another user on unix only")
}
