package record

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/mcpx"
)

// Transport returns the transport the proxy serves the agent on:
// newline-delimited JSON-RPC read from in and written to out, as with the
// SDK's IOTransport, except that a line the SDK could not read does not
// end the session. A line that is not JSON, is not a JSON-RPC message, or
// is longer than Options.MaxMessage is skipped; the agent gets a JSON-RPC
// error for it (-32700 for a line that is not JSON, -32600 otherwise),
// with the request's id when the line is a request that has one and null
// otherwise, and the proxy's stderr says what was skipped. A message too
// large to read that is recognisably a notification or a response gets
// no answer, as JSON-RPC has it. A batch is refused the same way (-32600)
// unless the agent asked for a protocol revision that has batches (before
// 2025-06-18): the SDK would end the session for it. Neither in nor out
// is closed.
func (p *Proxy) Transport(in io.Reader, out io.Writer) mcp.Transport {
	w := &agentWriter{W: out}
	limit := p.opts.maxMessage()
	r := mcpx.NewFrameReader(struct{ io.Reader }{in}, limit, func(l *mcpx.RejectedLine) []byte {
		p.rejectAgentLine(w, l, limit)
		return nil
	})
	r.Batches = func() bool { return mcpx.BatchesAllowed(p.server.Sessions()) }
	// The FrameReader enforces the limit; the SDK's own (16 MiB, counted
	// over its read-ahead) is lifted.
	t := &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}
	if !p.opts.NoFastPath {
		fc := p.newFastConn(w, t)
		r.Divert = fc.divert
		r.Done = fc.gone
	}
	return t
}

// rejectAgentLine answers a line from the agent that was not passed on
// (mcpx.Reject).
func (p *Proxy) rejectAgentLine(w io.Writer, l *mcpx.RejectedLine, limit int) {
	r := mcpx.Reject(l, "over the proxy's "+mcpx.SizeText(int64(limit))+" limit on a message (reelier mcp --max-message)")
	p.warnf("%s", termtext.Line(r.Warning))
	if r.Answer != nil {
		w.Write(r.Answer)
	}
}

// agentWriter is the proxy's output to the agent (mcpx.LineWriter),
// written to by the SDK, by rejectAgentLine and by the fast path.
type agentWriter = mcpx.LineWriter
