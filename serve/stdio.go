package serve

import (
	"fmt"
	"io"

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
	w := &mcpx.LineWriter{W: out}
	r := mcpx.NewFrameReader(struct{ io.Reader }{in}, limit, func(l *mcpx.RejectedLine) []byte {
		if answer := s.rejectLine(l, limit); answer != nil {
			w.Write(answer)
		}
		return nil // the SDK reads nothing in the line's place
	})
	r.Batches = func() bool { return mcpx.BatchesAllowed(s.mcp.Sessions()) }
	// The FrameReader enforces the limit; the SDK's own is lifted.
	return &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}
}

// rejectLine is the answer to a line of the client's that the SDK could
// not read, nil for none (mcpx.Reject).
func (s *Server) rejectLine(l *mcpx.RejectedLine, limit int) []byte {
	r := mcpx.Reject(l, "over the "+mcpx.SizeText(int64(limit))+" limit on a message")
	s.warnf("%s", r.Warning)
	return r.Answer
}

// warnf writes one line to the server's stderr.
func (s *Server) warnf(format string, args ...any) {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	io.WriteString(s.opts.Stderr, "reelier serve: "+termtext.Line(fmt.Sprintf(format, args...))+"\n")
}
