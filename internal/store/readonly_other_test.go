//go:build !unix

package store

func fullDiskChild(db string) int { return 2 }
