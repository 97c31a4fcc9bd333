package cli

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"
)

// configFileHint is what to do about an MCP config file that could not be
// read.
const configFileHint = "make it a regular file the client can parse, or move it away; --config PATH names another config"

// orHint is hint, or else when hint is "".
func orHint(hint, otherwise string) string {
	if hint != "" {
		return hint
	}
	return otherwise
}

// classHint is what to do about an error that carries no hint of its
// own, by its class; "" for a class it knows nothing of.
func classHint(err error) string {
	var addr *net.AddrError
	var ne net.Error
	switch {
	case errors.Is(err, errIsDir):
		return "name a file, not a folder"
	case errors.Is(err, fs.ErrNotExist):
		return "check the path (a relative one is read from the current folder)"
	case errors.Is(err, fs.ErrPermission):
		return "check the file's permissions, or run mcpcost as a user who may use it"
	case errors.Is(err, syscall.ENOSPC):
		return "free some disk space, then run the command again"
	case errors.Is(err, syscall.EROFS):
		return "name a place on a writable file system"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "check the address and that its server is up, then run the command again"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return "check the address and the network, then run the command again"
	case errors.As(err, &addr):
		return "give the address as HOST:PORT with a port from 0 to 65535 (0 picks a free one)"
	}
	return ""
}
