package record

import (
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	w := &agentWriter{w: out}
	limit := p.opts.maxMessage()
	r := mcpx.NewFrameReader(struct{ io.Reader }{in}, limit, func(l *mcpx.RejectedLine) []byte {
		p.rejectAgentLine(w, l, limit)
		return nil
	})
	r.Batches = p.batchesAllowed
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

// rejectAgentLine answers a line from the agent that was not passed on.
func (p *Proxy) rejectAgentLine(w io.Writer, l *mcpx.RejectedLine, limit int) {
	var id []byte
	if l.Method {
		id = l.ID
	}
	switch {
	case l.TooLarge:
		msg := "the message is " + mcpx.SizeText(l.Size) + ", over the proxy's " + mcpx.SizeText(int64(limit)) + " limit on a message (reelier mcp --max-message)"
		p.warnf("a message from the client was skipped: %s", msg)
		if l.Method != (l.ID != nil) {
			return // a notification or a response: nothing to answer
		}
		w.Write(mcpx.ErrorResponse(id, jsonrpc.CodeInvalidRequest, msg))
	case errors.Is(l.Err, mcpx.ErrNotJSON):
		p.warnf("a line from the client that is not JSON was skipped (%s): %s", mcpx.SizeText(l.Size), excerpt(l.Line))
		w.Write(mcpx.ErrorResponse(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"))
	default:
		p.warnf("a line from the client that is not a JSON-RPC message was skipped (%v): %s", l.Err, excerpt(l.Line))
		w.Write(mcpx.ErrorResponse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+l.Err.Error()))
	}
}

// batchRevision is the first protocol revision without JSON-RPC batches.
const batchRevision = "2025-06-18"

// batchesAllowed reports whether the agent's session negotiated a
// protocol revision with batches, as the SDK's server would negotiate it
// from the revision the agent asked for: that revision if supported
// (2026-07-28 and later are not negotiated by initialize), else the
// newest. Before the agent's initialize is handled, it says no.
func (p *Proxy) batchesAllowed() bool {
	for ss := range p.server.Sessions() {
		params := ss.InitializeParams()
		if params == nil {
			return false
		}
		v := params.ProtocolVersion
		return v < batchRevision && slices.Contains(mcp.SupportedProtocolVersions(), v)
	}
	return false
}

// excerpt returns the start of a skipped line for a warning, escaped for
// the terminal.
func excerpt(line []byte) string {
	const max = 200
	if len(line) > max {
		return termtext.Line(string(line[:max])) + "…"
	}
	return termtext.Line(string(line))
}

// agentWriter is the proxy's output to the agent, written to by the SDK
// and by rejectAgentLine: one message a Write, under one lock, so the two
// never interleave.
type agentWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (a *agentWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.Write(p)
}

// Close implements io.WriteCloser; the writer underneath is not closed.
func (a *agentWriter) Close() error { return nil }
