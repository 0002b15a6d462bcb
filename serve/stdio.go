package serve

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/mcpx"
)

// StdioTransport returns the transport `reelier serve` answers a client on
// over stdio: newline-delimited JSON-RPC read from in and written to out,
// as with the SDK's IOTransport, except that a line the SDK cannot read
// does not end the session. The client's lines pass through an
// mcpx.FrameReader, as the recording proxy's do; a line that is not JSON
// is answered with a parse error (-32700, id null), one that is JSON but
// not a JSON-RPC message (an empty batch, an object or out-of-range id,
// nesting deeper than the SDK reads, no "jsonrpc" tag…) or is longer than
// limit bytes (mcpx.DefaultMaxMessage when limit <= 0) with an invalid
// request error (-32600) carrying the request's id when it has a usable
// one and null otherwise, and the session goes on. A notification or a
// response too large to read gets no answer, as JSON-RPC has it. What was
// skipped is said on stderr (nil: nowhere), escaped for the terminal.
// Neither in nor out is closed.
func (s *Server) StdioTransport(in io.Reader, out io.Writer, limit int) mcp.Transport {
	if limit <= 0 {
		limit = mcpx.DefaultMaxMessage
	}
	w := &lineWriter{w: out}
	r := mcpx.NewFrameReader(struct{ io.Reader }{in}, limit, func(l *mcpx.RejectedLine) []byte {
		if answer := s.rejectLine(l, limit); answer != nil {
			w.Write(answer)
		}
		return nil // the SDK reads nothing in the line's place
	})
	r.Batches = s.batchesAllowed
	// The FrameReader enforces the limit; the SDK's own is lifted.
	return &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}
}

// rejectLine is the answer to a line of the client's that the SDK could
// not read, nil for none.
func (s *Server) rejectLine(l *mcpx.RejectedLine, limit int) []byte {
	var id []byte
	if l.Method && usableID(l.ID) {
		id = l.ID
	}
	switch {
	case l.TooLarge:
		msg := "the message is " + mcpx.SizeText(l.Size) + ", over the " + mcpx.SizeText(int64(limit)) + " limit on a message"
		s.warnf("a message from the client was skipped: %s", msg)
		if l.Method != (l.ID != nil) {
			return nil // a notification or a response: nothing to answer
		}
		return mcpx.ErrorResponse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+msg)
	case errors.Is(l.Err, mcpx.ErrNotJSON):
		s.warnf("a line from the client that is not JSON was skipped (%s): %s", mcpx.SizeText(l.Size), lineExcerpt(l.Line))
		return mcpx.ErrorResponse(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	default:
		s.warnf("a line from the client that is not a JSON-RPC message was skipped (%v): %s", l.Err, lineExcerpt(l.Line))
		return mcpx.ErrorResponse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+l.Err.Error())
	}
}

// usableID reports whether id, a JSON string or number, is one the SDK
// reads as a request id: a string, or an integer that fits in 64 bits.
// Anything else (1e400, 1.5) cannot be echoed back, so the answer's id is
// null.
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

// warnf writes one line to the server's stderr.
func (s *Server) warnf(format string, args ...any) {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	io.WriteString(s.opts.Stderr, "reelier serve: "+termtext.Line(fmt.Sprintf(format, args...))+"\n")
}

// batchRevision is the first protocol revision without JSON-RPC batches.
const batchRevision = "2025-06-18"

// batchesAllowed reports whether the client's session negotiated a
// protocol revision with batches; before initialize it says no.
func (s *Server) batchesAllowed() bool {
	for ss := range s.mcp.Sessions() {
		params := ss.InitializeParams()
		if params == nil {
			return false
		}
		v := params.ProtocolVersion
		return v < batchRevision && slices.Contains(mcp.SupportedProtocolVersions(), v)
	}
	return false
}

// lineExcerpt is the start of a skipped line, for a warning.
func lineExcerpt(line []byte) string {
	const max = 200
	if len(line) > max {
		return string(line[:max]) + "…"
	}
	return string(line)
}

// lineWriter is the server's output to the client, written to by the SDK
// and by the FrameReader's rejections: one message a Write, under one
// lock, so the two never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (a *lineWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.Write(p)
}

// Close implements io.WriteCloser; the writer underneath is not closed.
func (a *lineWriter) Close() error { return nil }
