package serve

import (
	"context"
	"net"
	"net/http"

	"github.com/reelier/reelier/internal/mcphttp"
)

// The HTTP transport is internal/mcphttp's, shared with `reelier mcp
// --http`.

// Path is where the HTTP transport answers.
const Path = mcphttp.Path

// MinTokenLength is the shortest bearer token accepted: a token is the
// only thing between a non-loopback listener and the tools.
const MinTokenLength = mcphttp.MinTokenLength

// CheckToken refuses a token too short to guard a listener.
func CheckToken(token string) error { return mcphttp.CheckToken(token) }

// CheckBind decides whether addr (host:port) may be listened on: any
// address when a bearer token is configured, otherwise only a loopback
// one — 127.0.0.0/8, ::1 or "localhost". An empty host means every
// interface and is refused without a token like any other.
func CheckBind(addr string, haveToken bool) error {
	return mcphttp.CheckBind("reelier serve", addr, haveToken)
}

// Handler returns the streamable HTTP transport at Path. With a token,
// every request must carry it as "Authorization: Bearer <token>" (compared
// in constant time) before anything else is looked at; cross-origin
// browser requests are refused either way, and the SDK refuses a
// loopback request whose Host header is not a loopback name (DNS
// rebinding).
func (s *Server) Handler(token string) http.Handler {
	return mcphttp.Handler(s.mcp, token, "reelier serve answers MCP at "+Path)
}

// ServeListener serves the HTTP transport on ln until ctx ends, then
// shuts down, giving open requests a few seconds. Without a token it
// refuses a listener that is not bound to a loopback address, whatever
// address was asked for.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	return mcphttp.ServeListener(ctx, ln, s.Handler(token), token, "reelier serve")
}
