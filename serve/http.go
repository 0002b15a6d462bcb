package serve

import (
	"context"
	"net"
	"net/http"

	"github.com/reelier/reelier/internal/mcphttp"
)

// Path is where the HTTP transport answers.
const Path = mcphttp.Path

// MinTokenLength is the shortest bearer token accepted: a token is the
// only thing between a non-loopback listener and the tools.
const MinTokenLength = mcphttp.MinTokenLength

// command names reelier serve in the HTTP guard's messages.
const command = "reelier serve"

// CheckToken refuses a token too short to guard a listener.
func CheckToken(token string) error { return mcphttp.CheckToken(token) }

// CheckBind decides whether addr (host:port) may be listened on: any
// address when a bearer token is configured, otherwise only a loopback
// one — 127.0.0.0/8, ::1 or "localhost". An empty host means every
// interface and is refused without a token like any other.
func CheckBind(addr string, haveToken bool) error {
	return mcphttp.CheckBind(command, addr, haveToken)
}

// Handler returns the streamable HTTP transport at Path, guarded the way
// internal/mcphttp guards every Reelier MCP listener: with a token, every
// request must carry it as "Authorization: Bearer <token>"; cross-origin
// browser requests are refused either way.
func (s *Server) Handler(token string) http.Handler {
	return mcphttp.Handler(command, s.mcp, token)
}

// ServeListener serves the HTTP transport on ln until ctx ends, then
// shuts down, giving open requests a few seconds. Without a token it
// refuses a listener that is not bound to a loopback address, whatever
// address was asked for.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	return mcphttp.Serve(ctx, command, ln, s.Handler(token), token)
}
