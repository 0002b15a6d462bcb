package mcpx

import (
	"io"
	"sync/atomic"
)

// Over HTTP the SDK read a JSON response body whole and an SSE event up to
// its own limit: a server streaming gigabytes grew the process to match
// (issue #28). Every response body of a remote server now passes through
// a boundedBody, which holds each message — the whole body for JSON, one
// event for SSE — until it is complete and passes it on only then. A
// message over the message limit (--max-message, DefaultMaxMessage by
// default, as on stdio) ends the read with a TooLargeError before any of
// it has gone further, so neither the SDK nor the recorder's tap above it
// buffers a byte of it: the process holds at most one limit's worth of an
// oversized answer, in fixed-size chunks, never a copy. The call fails
// with that error; nothing more of the body is read.

// sseSlack is what the SDK's own SSE limit is set above the message
// limit, so that the bounded body, which counts an event's field names
// and line breaks too, is the one that says no, with its error.
const sseSlack = 64 << 10

// heldChunk is the size of the pieces a held message is read into.
const heldChunk = 64 << 10

// TooLargeError is the error of a read of a remote server's response that
// went over the message limit.
type TooLargeError struct {
	Server string // the server's URL, redacted
	Limit  int
	Size   int64 // the size the response declared (Content-Length), 0 if it did not
	SSE    bool  // an event of a stream
}

func (e *TooLargeError) Error() string {
	what := "the response body"
	if e.SSE {
		what = "an event of the response stream"
	}
	size := "is over"
	if e.Size > 0 {
		size = "is " + SizeText(e.Size) + ", over"
	}
	return "server " + e.Server + ": " + what + " " + size + " the " + SizeText(int64(e.Limit)) +
		" limit on a message (--max-message); it was not read further"
}

// boundedBody is a response body read one whole message at a time, up to
// the message limit.
type boundedBody struct {
	io.ReadCloser
	sse    bool
	left   int // bytes the current message may still take
	max    int
	server string
	// For SSE: the last byte was a line break, and the one before it too
	// (an empty line ends an event); cr notes a CR an LF may follow.
	nl, cr  bool
	crEnded bool // the CR just read ended an event

	held  [][]byte // bytes read and not passed on yet, in order; the last chunk may have room left
	heldN int      // the bytes in held
	ready int      // how many held bytes, from the front, are whole messages that may go on

	end    error                          // the underlying body's error (io.EOF at its end), given once held is passed on
	failed error                          // the TooLargeError, given once the whole messages before it are passed on
	seen   *atomic.Pointer[TooLargeError] // where the error is noted for the call's report
}

func (b *boundedBody) fail(e *TooLargeError) {
	b.failed = e
	if b.seen != nil {
		b.seen.Store(e)
	}
	// Only the whole messages before the oversized one are kept.
	b.drop(b.heldN - b.ready)
}

func (b *boundedBody) Read(p []byte) (int, error) {
	for b.ready == 0 {
		switch {
		case b.failed != nil:
			return 0, b.failed
		case b.end != nil:
			if b.heldN == 0 {
				return 0, b.end
			}
			// The body ended inside a message: it goes on as it is, and
			// the reader above decides what a cut message is.
			b.ready = b.heldN
		default:
			b.fill()
		}
	}
	return b.take(p), nil
}

// fill reads once from the body into the held chunks and counts what it
// read against the current message.
func (b *boundedBody) fill() {
	var buf []byte
	if k := len(b.held); k > 0 && cap(b.held[k-1])-len(b.held[k-1]) >= heldChunk/8 {
		buf = b.held[k-1]
	} else {
		buf = make([]byte, 0, heldChunk)
		b.held = append(b.held, buf)
	}
	n, err := b.ReadCloser.Read(buf[len(buf):cap(buf)])
	start := len(buf)
	buf = buf[:start+n]
	b.held[len(b.held)-1] = buf
	b.heldN += n
	if err != nil {
		b.end = err
	}
	if !b.sse {
		b.left -= n
		if b.left < 0 {
			b.fail(&TooLargeError{Server: b.server, Limit: b.max})
		}
		return
	}
	base := b.heldN - n
	for i, c := range buf[start:] {
		switch {
		case c == '\n' && b.cr:
			b.cr = false
			if b.crEnded {
				b.ready = base + i + 1 // the LF of the CRLF that ended an event goes with it
			}
			continue
		case c == '\n' || c == '\r':
			b.cr = c == '\r'
			b.crEnded = false
			if b.nl {
				b.left = b.max // an empty line: the event is over
				b.ready = base + i + 1
				b.crEnded = b.cr
			}
			b.nl = true
		default:
			b.cr, b.nl, b.crEnded = false, false, false
		}
		b.left--
		if b.left < 0 {
			b.fail(&TooLargeError{Server: b.server, Limit: b.max, SSE: true})
			return
		}
	}
}

// take copies ready bytes into p.
func (b *boundedBody) take(p []byte) int {
	n := 0
	for n < len(p) && b.ready > 0 {
		c := b.held[0]
		k := min(len(c), len(p)-n, b.ready)
		copy(p[n:], c[:k])
		n += k
		b.ready -= k
		b.heldN -= k
		if k == len(c) && (len(b.held) > 1 || cap(c)-len(c) < heldChunk/8) {
			b.held[0] = nil
			b.held = b.held[1:]
		} else {
			b.held[0] = c[k:]
		}
	}
	return n
}

// drop forgets the last n held bytes.
func (b *boundedBody) drop(n int) {
	for n > 0 && len(b.held) > 0 {
		last := len(b.held) - 1
		c := b.held[last]
		if len(c) <= n {
			n -= len(c)
			b.heldN -= len(c)
			b.held[last] = nil
			b.held = b.held[:last]
			continue
		}
		b.held[last] = c[:len(c)-n]
		b.heldN -= n
		n = 0
	}
}
