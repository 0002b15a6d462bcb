package mcpx

import (
	"errors"
	"iter"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a stdio peer that reads its client through a FrameReader (the
// recording proxy, `reelier serve`) answers for a line it rejected, so
// the two answer alike.

// Rejection is the answer to a rejected line and the warning to print
// for it.
type Rejection struct {
	// Answer is the JSON-RPC error to send, nil for none (a notification
	// or a response too large to read).
	Answer []byte
	// Warning says what was skipped; it quotes the line as it came, so
	// it goes to a terminal only through termtext.Line.
	Warning string
}

// Reject is the answer to a line of the client's that the SDK could not
// read: -32700 with id null for a line that is not JSON, -32600
// otherwise, with the request's id when it is one the SDK reads (a
// string, or an integer that fits in 64 bits; 1e400 cannot be echoed
// back) and null otherwise. overLimit says, for a line over the limit,
// what the limit is ("over the 64 MiB limit on a message").
func Reject(l *RejectedLine, overLimit string) Rejection {
	var id []byte
	if l.Method && usableID(l.ID) {
		id = l.ID
	}
	switch {
	case l.TooLarge:
		msg := "the message is " + SizeText(l.Size) + ", " + overLimit
		r := Rejection{Warning: "a message from the client was skipped: " + msg}
		if l.Method == (l.ID != nil) {
			r.Answer = ErrorResponse(id, jsonrpc.CodeInvalidRequest, msg)
		}
		return r
	case errors.Is(l.Err, ErrNotJSON):
		return Rejection{
			Answer:  ErrorResponse(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"),
			Warning: "a line from the client that is not JSON was skipped (" + SizeText(l.Size) + "): " + excerpt(l.Line),
		}
	default:
		return Rejection{
			Answer:  ErrorResponse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+l.Err.Error()),
			Warning: "a line from the client that is not a JSON-RPC message was skipped (" + l.Err.Error() + "): " + excerpt(l.Line),
		}
	}
}

// usableID reports whether id, a JSON string or number, is one the SDK
// reads as a request id.
func usableID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		return true
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// excerpt is the start of a skipped line.
func excerpt(line []byte) string {
	const max = 200
	if len(line) > max {
		return string(line[:max]) + "…"
	}
	return string(line)
}

// batchRevision is the first protocol revision without JSON-RPC batches.
const batchRevision = "2025-06-18"

// BatchesAllowed reports whether the client's session negotiated a
// protocol revision with batches, as the SDK's server negotiates it from
// the revision the client asked for; before initialize it says no. It is
// a FrameReader's Batches for a server's sessions.
func BatchesAllowed(sessions iter.Seq[*mcp.ServerSession]) bool {
	for ss := range sessions {
		params := ss.InitializeParams()
		if params == nil {
			return false
		}
		v := params.ProtocolVersion
		return v < batchRevision && slices.Contains(mcp.SupportedProtocolVersions(), v)
	}
	return false
}

// LineWriter is a stdio peer's output to its client, written to by the
// SDK and by the answers to rejected lines: one message a Write, under
// one lock, so the two never interleave. Close leaves the writer
// underneath open.
type LineWriter struct {
	mu sync.Mutex
	W  interface{ Write([]byte) (int, error) }
}

func (a *LineWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.W.Write(p)
}

// Close implements io.WriteCloser; the writer underneath is not closed.
func (a *LineWriter) Close() error { return nil }
