// Package mcphttp serves an MCP server over the streamable HTTP
// transport the way every Reelier command that offers one does (`reelier
// serve --http`, `reelier mcp --http`): at Path, on a loopback address
// only unless a bearer token is configured, the token checked in constant
// time before anything else, cross-origin browser requests refused, and a
// graceful shutdown when the context ends.
package mcphttp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the HTTP transport answers.
const Path = "/mcp"

// MinTokenLength is the shortest bearer token accepted: a token is the
// only thing between a non-loopback listener and the tools.
const MinTokenLength = 16

// The HTTP server's limits.
const (
	sessionTimeout    = 30 * time.Minute
	readHeaderTimeout = 10 * time.Second
	shutdownGrace     = 5 * time.Second
)

// CheckToken refuses a token too short to guard a listener.
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return fmt.Errorf("the token is %d characters; use at least %d (for example the output of `openssl rand -hex 32`)", len(token), MinTokenLength)
	}
	return nil
}

// CheckBind decides whether addr (host:port) may be listened on by the
// command cmd ("reelier serve"): any address when a bearer token is
// configured, otherwise only a loopback one — 127.0.0.0/8, ::1 or
// "localhost". An empty host means every interface and is refused without
// a token like any other.
func CheckBind(cmd, addr string, haveToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, such as 127.0.0.1:8765: %v", addr, err)
	}
	if haveToken || isLoopbackHost(host) {
		return nil
	}
	return errNotLoopback(cmd, addr)
}

func errNotLoopback(cmd, addr string) error {
	return fmt.Errorf("refusing to serve on %s without a token: without one, %s listens only on a loopback address (127.0.0.1, ::1 or localhost); "+
		"to serve beyond this machine, put a secret in an environment variable and pass --token-env NAME", addr, cmd)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Handler returns the streamable HTTP transport of the server at Path,
// other paths answered 404 with notFound. With a token, every request
// must carry it as "Authorization: Bearer <token>" (compared in constant
// time) before anything else is looked at; cross-origin browser requests
// are refused either way, and the SDK refuses a loopback request whose
// Host header is not a loopback name (DNS rebinding).
func Handler(server *mcp.Server, token, notFound string) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionTimeout})
	mux := http.NewServeMux()
	mux.Handle(Path, mcpHandler)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, notFound, http.StatusNotFound)
	})
	var h http.Handler = mux
	if token != "" {
		h = requireToken(token, h)
	}
	return http.NewCrossOriginProtection().Handler(h)
}

// requireToken lets through only requests that carry the bearer token.
// Both sides are hashed first, so the comparison takes the same time
// whatever the length of the guess.
func requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="reelier"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// ServeListener serves h on ln until ctx ends, then shuts down, giving
// open requests a few seconds. Without a token it refuses a listener that
// is not bound to a loopback address, whatever address was asked for; cmd
// names the command in that refusal.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler, token, cmd string) error {
	if token == "" {
		ap, err := netip.ParseAddrPort(ln.Addr().String())
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			ln.Close()
			return errNotLoopback(cmd, ln.Addr().String())
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
