package serve

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the request bodies read over HTTP.
const (
	// MaxBodyBytes is the largest request body; a larger one is answered
	// 413.
	MaxBodyBytes = mcp.DefaultMaxRequestBodyBytes
	// MaxHeldBodyBytes caps the bytes of request bodies held at once, from
	// the start of their read to the end of their request; a body that
	// would pass it is answered 503 with a Retry-After of BodyRetryAfter.
	// Without it, 600 bodies of 4 MiB sent at once took 2.5 GB.
	MaxHeldBodyBytes = 64 << 20
	BodyRetryAfter   = time.Second
)

// errBodiesFull is the error of a body read when the bodies held already
// take MaxHeldBodyBytes.
var errBodiesFull = errors.New("the request bodies held take all the room the server gives them")

// bodyBudget counts the bytes of the request bodies held.
type bodyBudget struct {
	held atomic.Int64
}

// take holds n more bytes, unless that passes MaxHeldBodyBytes.
func (b *bodyBudget) take(n int64) bool {
	for {
		h := b.held.Load()
		if h+n > MaxHeldBodyBytes {
			return false
		}
		if b.held.CompareAndSwap(h, h+n) {
			return true
		}
	}
}

// give returns n bytes taken.
func (b *bodyBudget) give(n int64) { b.held.Add(-n) }

// firstBodyRead is the room a body of unknown length starts with; it
// doubles as it fills.
const firstBodyRead = 4 << 10

// read reads r's body whole, at most MaxBodyBytes (else an
// *http.MaxBytesError), holding in b the room it takes as it grows (else
// errBodiesFull). held is what it holds, to give back at the end of the
// request, error or not.
func (b *bodyBudget) read(w http.ResponseWriter, r *http.Request) (body []byte, held int64, err error) {
	if r.ContentLength > MaxBodyBytes {
		return nil, 0, &http.MaxBytesError{Limit: MaxBodyBytes}
	}
	// Room for the whole body when its length is given, but no more than
	// a first read until it arrives: a caller naming a length and
	// sending nothing holds little.
	limit := int64(MaxBodyBytes)
	if r.ContentLength >= 0 {
		limit = r.ContentLength
	}
	room := min(limit, firstBodyRead)
	if !b.take(room) {
		return nil, 0, errBodiesFull
	}
	held = room
	in := http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	buf := make([]byte, 0, room)
	for {
		if len(buf) == cap(buf) {
			// Full: one byte more says whether it goes on.
			var one [1]byte
			n, err := io.ReadFull(in, one[:])
			if n == 0 {
				if err == io.EOF {
					return buf, held, nil
				}
				return nil, held, err
			}
			grow := min(max(2*int64(cap(buf)), firstBodyRead), limit) - int64(cap(buf))
			if grow <= 0 {
				// Past MaxBodyBytes the reader fails; past a given
				// length the server's reader ends.
				return nil, held, errors.New("the body is longer than its Content-Length")
			}
			if !b.take(grow) {
				return nil, held, errBodiesFull
			}
			held += grow
			next := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(next, buf)
			buf = append(next, one[0])
			continue
		}
		n, err := in.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			return nil, held, err
		}
	}
}

// heldBody is a request body read whole, given to the SDK, which reads it
// into a copy of its own: at its end it lets go of the bytes, so that the
// body is held once.
type heldBody struct{ b []byte }

func (h *heldBody) Read(p []byte) (int, error) {
	if len(h.b) == 0 {
		h.b = nil
		return 0, io.EOF
	}
	n := copy(p, h.b)
	h.b = h.b[n:]
	if len(h.b) == 0 {
		h.b = nil
	}
	return n, nil
}

func (h *heldBody) Close() error {
	h.b = nil
	return nil
}
