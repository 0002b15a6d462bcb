package mcphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
