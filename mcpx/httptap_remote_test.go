package mcpx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
)

// TestRemoteSession: the client of a remote server is the SDK's own
// streamable connection, not a wrapper around it, so the SDK learns of
// the session: after the handshake it opens the standalone GET stream
// (where a server sends what it sends outside a call) and sends
// MCP-Protocol-Version; and the raw result of a call is still captured
// for the recording, read off the HTTP exchange.
func TestRemoteSession(t *testing.T) {
	var mu sync.Mutex
	var gets int
	versions := map[string]string{} // JSON-RPC method → MCP-Protocol-Version
	ts := remoteServer(t, "", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			switch r.Method {
			case http.MethodGet:
				gets++
			case http.MethodPost:
				var body struct {
					Method string `json:"method"`
				}
				data, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(data))
				if json.Unmarshal(data, &body) == nil && body.Method != "" {
					versions[body.Method] = r.Header.Get("Mcp-Protocol-Version")
				}
			}
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	r, err := startRemote(t, ts.URL+"/mcp", nil, mcpx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, raw, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), nil)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "remote: hi" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if !strings.Contains(string(raw), `"remote: hi"`) {
		t.Errorf("raw result %s, want the server's bytes", raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if gets == 0 {
		t.Error("the client never opened the standalone GET stream")
	}
	if v := versions["tools/call"]; v != "2025-11-25" {
		t.Errorf("tools/call carried MCP-Protocol-Version %q, want 2025-11-25 (methods seen: %v)", v, versions)
	}
}
