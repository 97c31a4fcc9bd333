//go:build !unix

package store

import (
	"os"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// edgeFile is a file opened for edgeHash's two reads.
type edgeFile = *os.File

// openEdge opens a regular file, without waiting (see transcript.OpenFile).
func openEdge(path string) (edgeFile, error) {
	f, _, err := transcript.OpenFile(path)
	return f, err
}
