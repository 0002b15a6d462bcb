package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// CheckBind decides whether addr (host:port) may be listened on: any
// address when a bearer token is configured, otherwise only a loopback
// one — 127.0.0.0/8, ::1 or "localhost". An empty host means every
// interface and is refused without a token like any other.
func CheckBind(addr string, haveToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, such as 127.0.0.1:8765: %v", addr, err)
	}
	if haveToken || isLoopbackHost(host) {
		return nil
	}
	return errNotLoopback(addr)
}

func errNotLoopback(addr string) error {
	return fmt.Errorf("refusing to serve on %s without a token: without one, reelier serve listens only on a loopback address (127.0.0.1, ::1 or localhost); "+
		"to serve beyond this machine, put a secret in an environment variable and pass --token-env NAME", addr)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Handler returns the streamable HTTP transport at Path. With a token,
// every request must carry it as "Authorization: Bearer <token>" (compared
// in constant time) before anything else is looked at; cross-origin
// browser requests are refused either way, and the SDK refuses a
// loopback request whose Host header is not a loopback name (DNS
// rebinding).
func (s *Server) Handler(token string) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionTimeout})
	mux := http.NewServeMux()
	mux.Handle(Path, requireSession(mcpHandler))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "reelier serve answers MCP at "+Path, http.StatusNotFound)
	})
	var h http.Handler = mux
	if token != "" {
		h = requireToken(token, h)
	}
	return http.NewCrossOriginProtection().Handler(h)
}

// maxPeek is the most of a session-less POST body requireSession reads to
// see what it is; a longer one (no initialize is that long) goes to the
// SDK unread.
const maxPeek = 1 << 20

// sessionIDHeader is the streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// requireSession answers a POST that carries no Mcp-Session-Id header and
// is a request other than initialize (or ping) the way the transport
// specification asks: HTTP 400 Bad Request, with a JSON-RPC Invalid
// Request error (-32600) that says to initialize first. Left to the SDK,
// such a request would open a new, uninitialized session and be answered
// with a JSON-RPC error whose code is 0, which is no error code at all.
// Requests of the session-less protocol revision (2026-07-28 and later,
// which name their protocol version in params._meta) and notifications
// go to the SDK as they are.
func requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		if err != nil || len(body) > maxPeek {
			next.ServeHTTP(w, r)
			return
		}
		id, method, ok := needsSession(body)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		resp, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"id":      id,
			"error": map[string]any{
				"code": jsonrpc.CodeInvalidRequest,
				"message": fmt.Sprintf("Bad Request: %q needs a session and this request has no %s header: send initialize first, then send that header, with the value the initialize response carried, on every request",
					method, sessionIDHeader),
			},
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(resp)
	})
}

// needsSession reports whether body is one JSON-RPC request (it has an id)
// that cannot be answered outside a session: any method but initialize
// and ping, sent in a protocol revision that has sessions. It returns the
// request's id and method.
func needsSession(body []byte) (json.RawMessage, string, bool) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 || string(msg.ID) == "null" || msg.Method == "" {
		return nil, "", false
	}
	switch msg.Method {
	case "initialize", "ping":
		return nil, "", false
	}
	if _, sessionless := msg.Params.Meta[mcp.MetaKeyProtocolVersion]; sessionless {
		return nil, "", false
	}
	return msg.ID, msg.Method, true
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

// ServeListener serves the HTTP transport on ln until ctx ends, then
// shuts down, giving open requests a few seconds. Without a token it
// refuses a listener that is not bound to a loopback address, whatever
// address was asked for.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	if token == "" {
		ap, err := netip.ParseAddrPort(ln.Addr().String())
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			ln.Close()
			return errNotLoopback(ln.Addr().String())
		}
	}
	srv := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: readHeaderTimeout}
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
