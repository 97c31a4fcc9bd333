//go:build !unix

package store

import "os"

// edgeFile is a file opened for edgeHash's two reads.
type edgeFile = *os.File

func openEdge(path string) (edgeFile, error) { return os.Open(path) }
