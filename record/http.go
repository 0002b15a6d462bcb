package record

import (
	"context"
	"net"
	"net/http"

	"github.com/reelier/reelier/internal/mcphttp"
)

// Handler returns the proxy as a streamable HTTP transport at
// mcphttp.Path (`reelier mcp --http`), served the way `reelier serve
// --http` is: with a token, every request must carry it as
// "Authorization: Bearer <token>"; cross-origin browser requests are
// refused. Every agent session shares the proxy's downstreams and its one
// recording.
func (p *Proxy) Handler(token string) http.Handler {
	return mcphttp.Handler(p.server, token, "reelier mcp answers MCP at "+mcphttp.Path)
}

// ServeListener serves the proxy over HTTP on ln until ctx ends. Without a
// token it refuses a listener that is not bound to a loopback address.
func (p *Proxy) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	return mcphttp.ServeListener(ctx, ln, p.Handler(token), token, "reelier mcp")
}
