package mcpx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
)

// modernOnly returns a go-sdk server that speaks only 2026-07-28: it
// refuses initialize, as such a server does (the go-sdk server, even
// restricted, would answer it with 2025-11-25), and has one tool.
func modernOnly() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "modern", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2026-07-28"}})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				return nil, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version", Data: json.RawMessage(`{"supported":["2026-07-28"],"requested":"2025-11-25"}`)}
			}
			return next(ctx, method, req)
		}
	})
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "modern: " + a.Text}}}, nil, nil
	})
	return s
}

// TestRemoteModernOnly: a remote server that speaks only 2026-07-28
// (streamable HTTP, stateless, as that revision has no sessions) is
// connected to after it refuses the 2025-11-25 handshake; the note says
// so, and its tools are routed and called. A server that refuses both
// handshakes fails to start with an error that gives both refusals.
func TestRemoteModernOnly(t *testing.T) {
	srv := modernOnly()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	var stderr bytes.Buffer
	r, err := startRemote(t, ts.URL, nil, mcpx.Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Downstreams()[0]
	if got := d.Revision(); got != "2026-07-28" || !d.Modern() || d.ServerName() != "modern" {
		t.Errorf("revision %q, server name %q; want 2026-07-28, modern", got, d.ServerName())
	}
	if want := "it refused the 2025-11-25 handshake"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	res, _, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), nil)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "modern: hi" {
		t.Fatalf("echo: %+v, %v", res, err)
	}

	// A server that refuses initialize and server/discover alike.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(req.Body).Decode(&msg)
		if len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32601,"message":"no such method"}}`))
	}))
	t.Cleanup(refusing.Close)
	_, err = startRemote(t, refusing.URL, nil, mcpx.Options{})
	if err == nil || !strings.Contains(err.Error(), "it refused the 2025-11-25 handshake first") {
		t.Errorf("a server refusing both handshakes: %v", err)
	}
}
