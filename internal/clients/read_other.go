//go:build !unix

package clients

// openNoBlock is not needed where opening a file cannot wait for a writer.
const openNoBlock = 0
