package mcpx

import (
	"io"
	"sync/atomic"
)

// Over HTTP the SDK read a JSON response body whole and an SSE event up to
// its own limit: a server streaming gigabytes grew the process to match
// (issue #28). Every response body of a remote server now passes through
// a boundedBody, which ends the read with a TooLargeError once one message
// — the whole body for JSON, one event for SSE — is over the message limit
// (--max-message, DefaultMaxMessage by default, as on stdio). The call
// fails with that error; nothing more of the body is read.

// sseSlack is what the SDK's own SSE limit is set above the message
// limit, so that the bounded body, which counts an event's field names
// and line breaks too, is the one that says no, with its error.
const sseSlack = 64 << 10

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

// boundedBody is a response body read up to the message limit.
type boundedBody struct {
	io.ReadCloser
	sse    bool
	left   int // bytes the current message may still take
	max    int
	server string
	// For SSE: the last byte was a line break, and the one before it too
	// (an empty line ends an event); cr notes a CR an LF may follow.
	nl, cr bool
	err    error
	seen   *atomic.Pointer[TooLargeError] // where the error is noted for the call's report
}

func (b *boundedBody) fail(e *TooLargeError) (int, error) {
	b.err = e
	if b.seen != nil {
		b.seen.Store(e)
	}
	return 0, e
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	if !b.sse {
		b.left -= n
		if b.left < 0 {
			return b.fail(&TooLargeError{Server: b.server, Limit: b.max})
		}
		return n, err
	}
	for _, c := range p[:n] {
		switch {
		case c == '\n' && b.cr:
			b.cr = false
			continue
		case c == '\n' || c == '\r':
			b.cr = c == '\r'
			if b.nl {
				b.left = b.max // an empty line: the event is over
			}
			b.nl = true
		default:
			b.cr, b.nl = false, false
		}
		b.left--
		if b.left < 0 {
			return b.fail(&TooLargeError{Server: b.server, Limit: b.max, SSE: true})
		}
	}
	return n, err
}
