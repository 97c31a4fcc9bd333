package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/outfile"
	"github.com/mcpcost/mcpcost/internal/render"
)

// readInput reads a file, or standard input for "-", refusing more than max
// bytes.
func readInput(env *Env, name string, max int64) ([]byte, error) {
	var r io.Reader
	size := int64(0)
	if name == "-" {
		r = env.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, unwrapPathError(err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("reading %s: %w", name, errIsDir)
			}
			size = fi.Size()
			if fi.Size() > max {
				return nil, withHint(fmt.Errorf("%s is %s bytes, over the --max-bytes limit of %s", name, render.Int(int(fi.Size())), render.Int(int(max))),
					"raise the limit with --max-bytes if the file is really a tools capture")
			}
		}
		r = f
	}
	// A file is read into a buffer of its size: no doubling, no garbage.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(r, max+1))
	data := buf.Bytes()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", displayName(name), err)
	}
	if int64(len(data)) > max {
		return nil, withHint(fmt.Errorf("%s is over the --max-bytes limit of %s bytes", displayName(name), render.Int(int(max))),
			"raise the limit with --max-bytes if the input is really a tools capture")
	}
	return data, nil
}

// errIsDir is the error of an input, or an output, that is a folder.
var errIsDir = outfile.ErrIsDir

// hintMissing attaches hint to err when err is an input that does not
// exist or is a folder, and carries no hint of its own.
func hintMissing(err error, hint string) error {
	var h interface{ Hint() string }
	if err == nil || errors.As(err, &h) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errIsDir) {
		return withHint(err, hint)
	}
	return err
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// unwrapPathError drops the *PathError's repetition of the path.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// byteSize is a flag value for sizes: 1000, 64K, 100M, 2G (powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	mult := int64(1)
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive size such as 1048576, 64K, 100M or 1G")
	}
	*b = byteSize(n * mult)
	return nil
}

// nameFromPath derives a server name from an input file: the file's base
// name without extension, or its folder's name when the file has a generic
// name (wire.jsonl, tools.json, measurement.json, ...).
func nameFromPath(p string) string {
	if p == "-" {
		return "stdin"
	}
	base := filepath.Base(p)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	switch strings.ToLower(stem) {
	case "wire", "tools", "measurement", "capture", "canonical", "tools-list", "tools_list", "result", "response":
		if dir := filepath.Base(filepath.Dir(p)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	return stem
}
