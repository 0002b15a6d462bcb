package serve

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckBind(t *testing.T) {
	tests := []struct {
		addr  string
		token bool
		ok    bool
	}{
		{"127.0.0.1:8765", false, true},
		{"127.9.9.9:0", false, true},
		{"[::1]:8765", false, true},
		{"localhost:8765", false, true},
		{"LOCALHOST:0", false, true},
		{":8765", false, false},
		{"0.0.0.0:8765", false, false},
		{"[::]:8765", false, false},
		{"192.168.1.20:8765", false, false},
		{"example.com:8765", false, false},
		{"localhost.example.com:8765", false, false},
		{":8765", true, true},
		{"0.0.0.0:8765", true, true},
		{"192.168.1.20:8765", true, true},
		{"8765", false, false},
		{"8765", true, false},
	}
	for _, tt := range tests {
		err := CheckBind(tt.addr, tt.token)
		if (err == nil) != tt.ok {
			t.Errorf("CheckBind(%q, token %t) = %v, want ok %t", tt.addr, tt.token, err, tt.ok)
		}
		if err != nil && !tt.ok && strings.Contains(tt.addr, ":") && !strings.Contains(err.Error(), "--token-env") {
			t.Errorf("CheckBind(%q): the refusal does not say how to serve beyond loopback: %v", tt.addr, err)
		}
	}
}

func TestCheckToken(t *testing.T) {
	if err := CheckToken("short"); err == nil || !strings.Contains(err.Error(), "at least 16") || strings.Contains(err.Error(), "short") {
		t.Errorf("a short token: %v (the message must not echo it)", err)
	}
	if err := CheckToken(strings.Repeat("k", 16)); err != nil {
		t.Errorf("a 16-character token: %v", err)
	}
}

// serveHTTP serves srv on 127.0.0.1 until the test ends and returns the
// endpoint URL.
func serveHTTP(t *testing.T, token string) string {
	t.Helper()
	srv, err := New(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln, token) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeListener: %v", err)
		}
		srv.Close()
	})
	return "http://" + ln.Addr().String() + Path
}

// withToken adds a bearer token to every request.
type withToken struct{ token string }

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient connects a go-sdk client over streamable HTTP.
func httpClient(t *testing.T, endpoint, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{}
	if token != "" {
		hc.Transport = withToken{token}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1.0.0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// post sends one raw JSON-RPC initialize request and returns the status.
func post(t *testing.T, endpoint string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("a 401 without WWW-Authenticate")
	}
	return resp.StatusCode
}

// TestHTTPToken: with a token, only requests that carry it reach the
// server; a real client with it works end to end.
func TestHTTPToken(t *testing.T) {
	const token = "s3cret-token-for-the-http-test"
	endpoint := serveHTTP(t, token)
	cs, err := httpClient(t, endpoint, token)
	if err != nil {
		t.Fatalf("a client with the token: %v", err)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != len(allTools) {
		t.Fatalf("tools over HTTP: %v, %v", tools, err)
	}
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "x.skill.md", "wrap": ["sh -c id"]}`), "only available when reelier serve runs on stdio")

	if _, err := httpClient(t, endpoint, ""); err == nil {
		t.Error("a client without the token connected")
	}
	if _, err := httpClient(t, endpoint, token+"x"); err == nil {
		t.Error("a client with a wrong token connected")
	}
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no header", nil, http.StatusUnauthorized},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"a prefix of the token", map[string]string{"Authorization": "Bearer " + token[:10]}, http.StatusUnauthorized},
		{"basic scheme", map[string]string{"Authorization": "Basic " + token}, http.StatusUnauthorized},
		{"right token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
		{"scheme in lower case", map[string]string{"Authorization": "bearer " + token}, http.StatusOK},
		{"another path", map[string]string{"Authorization": "Bearer " + token, "X-Path": "/"}, http.StatusNotFound},
		{"DNS rebinding: a foreign Host", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example:80"}, http.StatusForbidden},
		{"cross-origin browser request", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := endpoint
			if p, ok := tt.header["X-Path"]; ok {
				url = strings.TrimSuffix(endpoint, Path) + p
			}
			if got := post(t, url, tt.header); got != tt.want {
				t.Errorf("status %d, want %d", got, tt.want)
			}
		})
	}
}

// TestHTTPLoopback: without a token the server answers on loopback, and
// refuses a listener bound anywhere else whatever was asked for.
func TestHTTPLoopback(t *testing.T) {
	endpoint := serveHTTP(t, "")
	cs, err := httpClient(t, endpoint, "")
	if err != nil {
		t.Fatal(err)
	}
	var out FindSkillOutput
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "list bookings"}`), &out)
	if out.Searched != 0 || !strings.Contains(out.Message, "No skill files") {
		t.Errorf("find over HTTP: %+v", out)
	}

	srv, err := New(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot listen on every interface here: %v", err)
	}
	err = srv.ServeListener(t.Context(), ln, "")
	if err == nil || !strings.Contains(err.Error(), "refusing to serve") {
		t.Errorf("a listener on every interface without a token: %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("the refused listener was left open")
	}
}
