package mcpx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/testkit/mcptest"
)

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{
		"http://127.0.0.1:3001/mcp": true, "HTTPS://example.com": true, " https://x/mcp ": true,
		"npx -y server": false, "http:/x": false, "./http://x": false, "ftp://x": false, "": false,
	} {
		if got := mcpx.IsURL(in); got != want {
			t.Errorf("IsURL(%q) = %v; want %v", in, got, want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in, name, value, err string
		vars                 []string
	}{
		{in: "Authorization: Bearer $TOKEN", name: "Authorization", value: "Bearer $TOKEN", vars: []string{"TOKEN"}},
		{in: "X-Api-Key:${KEY}", name: "X-Api-Key", value: "${KEY}", vars: []string{"KEY"}},
		{in: "  X-Team :  red  ", name: "X-Team", value: "red"},
		{in: "X-Price: 5$ and $$ and $A$A", name: "X-Price", value: "5$ and $$ and $A$A", vars: []string{"A"}},
		{in: "X-Empty:", name: "X-Empty", value: ""},
		{in: "Authorization Bearer x", err: "want 'NAME: VALUE'"},
		{in: ": v", err: "header name before the colon is empty"},
		{in: "X Team: v", err: `"X Team" is not a header name`},
		{in: "mcp-session-id: 1", err: "Mcp-Session-Id is set by the MCP transport"},
		{in: "Content-Type: text/plain", err: "Content-Type is set by the MCP transport"},
		{in: "X-A: ${TOKEN", err: "${ without a closing }"},
		{in: "X-A: ${1X}", err: "${1X}, which is not a variable name"},
		{in: "X-A: a\x01b", err: "control character"},
	}
	for _, tt := range tests {
		h, err := mcpx.ParseHeader(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHeader(%q) error %v; want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || h.Name != tt.name || h.Value != tt.value {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %s: %s", tt.in, h, err, tt.name, tt.value)
			continue
		}
		if got := h.Vars(); strings.Join(got, ",") != strings.Join(tt.vars, ",") {
			t.Errorf("Vars(%q) = %v; want %v", tt.in, got, tt.vars)
		}
	}
}

func TestHeaderExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cr3t-t0ken-value", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ value, want, err string }{
		{"Bearer $TOKEN", "Bearer s3cr3t-t0ken-value", ""},
		{"Bearer ${TOKEN}!", "Bearer s3cr3t-t0ken-value!", ""},
		{"$$TOKEN costs 5$", "$TOKEN costs 5$", ""},
		{"Bearer $MISSING", "", "refers to $MISSING, which is unset: export MISSING"},
		{"Bearer ${EMPTY}", "", "refers to $EMPTY, which is empty"},
	}
	for _, tt := range tests {
		got, err := mcpx.Header{Name: "Authorization", Value: tt.value}.Expand(lookup)
		if tt.err != "" {
			var unset *mcpx.UnsetVarError
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &unset) {
				t.Errorf("Expand(%q) error %v; want %q", tt.value, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tt.value, got, err, tt.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	r := &redact.Redactor{}
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:3001/mcp", "http://127.0.0.1:3001/mcp"},
		{"https://user:hunter2@example.com/mcp", "https://«redacted»@example.com/mcp"},
		{"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@example.com/mcp", "https://«redacted»@example.com/mcp"},
		{"https://example.com/mcp?token=abc123&team=red", "https://example.com/mcp?token=«redacted»&team=red"},
		{"https://example.com/mcp?api_key=k&key=v&sig=s&page=2", "https://example.com/mcp?api_key=«redacted»&key=«redacted»&sig=«redacted»&page=2"},
		{"https://example.com/mcp?next_page_token=abc", "https://example.com/mcp?next_page_token=abc"},
		{"https://example.com/mcp?x=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "https://example.com/mcp?x=«redacted»"},
		{"https://example.com/a%20b?q=1#frag", "https://example.com/a%20b?q=1#frag"},
	}
	for _, tt := range tests {
		if got := mcpx.RedactURL(r, tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if got := mcpx.RedactURL(r, tt.want); got != tt.want {
			t.Errorf("RedactURL is not idempotent on %q: %q", tt.want, got)
		}
	}
}

func TestSkillHeader(t *testing.T) {
	r := &redact.Redactor{}
	tests := []struct{ name, value, want string }{
		{"Authorization", "Bearer $TOKEN", "Authorization: Bearer $TOKEN"},
		{"X-Api-Key", "${KEY}", "X-Api-Key: ${KEY}"},
		{"X-Team", "red", "X-Team: $X_TEAM"},
		{"Authorization", "Bearer abcdef0123456789abcdef", "Authorization: $AUTHORIZATION"},
		{"X-Api-Key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz$SUFFIX", "X-Api-Key: $X_API_KEY"},
	}
	for _, tt := range tests {
		if got := mcpx.SkillHeader(r, mcpx.Header{Name: tt.name, Value: tt.value}); got != tt.want {
			t.Errorf("SkillHeader(%s: %s) = %q; want %q", tt.name, tt.value, got, tt.want)
		}
	}
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer $TOKEN", "X: ${A}${B}", "X-A: $$", "a:b", ":", "X: ${"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := mcpx.ParseHeader(s)
		if err != nil {
			return
		}
		again, err := mcpx.ParseHeader(h.String())
		if err != nil || again != h {
			t.Fatalf("%q parsed as %+v, which reads back as %+v, %v", s, h, again, err)
		}
		v, err := h.Expand(func(string) (string, bool) { return "v", true })
		if err != nil || strings.ContainsAny(v, "\r\n") {
			t.Fatalf("%q expands to %q, %v", s, v, err)
		}
		if sk := mcpx.SkillHeader(&redact.Redactor{}, h); !strings.HasPrefix(sk, h.Name+": ") {
			t.Fatalf("skill form %q", sk)
		}
	})
}

func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"https://u:p@h/mcp?token=t", "http://h", "http://[::1]:80/x?a&b=", "https://h/%zz?%zz=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := &redact.Redactor{}
		once := mcpx.RedactURL(r, s)
		if twice := mcpx.RedactURL(r, once); twice != once {
			t.Fatalf("not idempotent: %q → %q → %q", s, once, twice)
		}
	})
}

// remoteServer serves mcptest's server over streamable HTTP on loopback,
// requiring the bearer token when one is given. wrap, when set, sees every
// request first.
func remoteServer(t *testing.T, token string, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	srv := mcptest.NewServer(mcptest.Options{Name: "remote"})
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if token != "" {
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func startRemote(t *testing.T, url string, headers []mcpx.Header, opts mcpx.Options) (*mcpx.Router, error) {
	t.Helper()
	opts.Headers = [][]mcpx.Header{headers}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 10 * time.Second
	}
	r, err := mcpx.Start(context.Background(), []string{url}, opts)
	if err == nil {
		t.Cleanup(r.Close)
	}
	return r, err
}

// TestRemoteDownstream: a server reached by URL, with a bearer token from
// the environment in a header; its tools are routed like a command's, and
// the token appears in no name or error.
func TestRemoteDownstream(t *testing.T) {
	const token = "tok-0123456789abcdef-secret"
	t.Setenv("REMOTE_TEST_TOKEN", token)
	ts := remoteServer(t, token, nil)
	url := ts.URL + "/mcp?access_token=" + token
	var stderr bytes.Buffer
	r, err := startRemote(t, url, []mcpx.Header{{Name: "Authorization", Value: "Bearer $REMOTE_TEST_TOKEN"}}, mcpx.Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Downstreams()[0]
	if want := ts.URL + "/mcp?access_token=«redacted»"; d.Name != want || r.Names()[0] != want {
		t.Errorf("name %q; want %q", d.Name, want)
	}
	if !d.Remote() || len(d.Headers()) != 1 || d.Headers()[0].Value != "Bearer $REMOTE_TEST_TOKEN" || d.ServerName() != "remote" {
		t.Errorf("downstream %+v, headers %v, server name %q", d, d.Headers(), d.ServerName())
	}
	res, _, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), nil)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "remote: hi" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if strings.Contains(stderr.String(), token) {
		t.Errorf("stderr holds the token: %s", stderr.String())
	}
}

// TestRemoteStartFaults: every way a URL can fail to be an MCP server
// ends the start with an error naming the server (redacted) and saying
// what happened, promptly, without a panic.
func TestRemoteStartFaults(t *testing.T) {
	const token = "tok-0123456789abcdef-secret"
	t.Setenv("REMOTE_TEST_TOKEN", "wrong-token-0123456789")
	refusing, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + refusing.Addr().String() + "/mcp"
	refusing.Close()
	hang := make(chan struct{})
	handler := func(f http.HandlerFunc) string {
		ts := httptest.NewServer(f)
		t.Cleanup(ts.Close)
		return ts.URL + "/mcp?token=" + token
	}
	tests := []struct {
		name    string
		url     string
		headers []mcpx.Header
		want    string
	}{
		{"wrong token", remoteServer(t, token, nil).URL + "/mcp", []mcpx.Header{{Name: "Authorization", Value: "Bearer $REMOTE_TEST_TOKEN"}},
			"the server refused the request: HTTP 401 Unauthorized; check the credentials given with --wrap-header"},
		{"no token", remoteServer(t, token, nil).URL + "/mcp", nil, "HTTP 401 Unauthorized"},
		{"unset variable", remoteServer(t, token, nil).URL + "/mcp", []mcpx.Header{{Name: "Authorization", Value: "Bearer $REMOTE_TEST_UNSET"}},
			"header Authorization refers to $REMOTE_TEST_UNSET, which is unset"},
		{"refused", refusedURL, nil, "could not connect: "},
		{"redirect", handler(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/elsewhere?token=abc", http.StatusTemporaryRedirect)
		}), nil, "the server redirects (HTTP 307) to http://127.0.0.1:1/elsewhere?token=«redacted»; Reelier does not follow redirects"},
		{"html", handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<html><body>Welcome</body></html>")
		}), nil, "the server answered HTTP 200 with an HTML page, not MCP"},
		{"html 404", handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "<html>Not here</html>")
		}), nil, "the server answered HTTP 404 with an HTML page, not MCP"},
		{"405 and no SSE either", handler(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				http.Error(w, "use GET", http.StatusMethodNotAllowed)
				return
			}
			http.Error(w, "nothing here", http.StatusNotFound)
		}), nil, "the server answered HTTP 405 Method Not Allowed, not MCP: is this the server's MCP endpoint (often …/mcp)?"},
		{"hang", handler(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		}), nil, "the server did not finish the MCP handshake within 500ms"},
		{"not http", "http://[::1", nil, "not a URL"},
	}
	t.Cleanup(func() { close(hang) }) // before the servers close
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := startRemote(t, tt.url, tt.headers, mcpx.Options{StartTimeout: 500 * time.Millisecond})
			if err == nil {
				t.Fatal("started")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q; want it to say %q", msg, tt.want)
			}
			if strings.Contains(msg, token) || strings.Contains(msg, "wrong-token") {
				t.Errorf("error holds a credential: %s", msg)
			}
			if tt.name != "not http" && !strings.Contains(msg, "--wrap http://127.0.0.1:") {
				t.Errorf("error does not name the server: %s", msg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestRemoteDropMidCall: a server that drops the connection while a call
// is in flight fails that call with an error naming it; the router stays
// usable for the caller to report it.
func TestRemoteDropMidCall(t *testing.T) {
	var drop atomic.Bool
	ts := remoteServer(t, "", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && drop.Load() {
				body, _ := io.ReadAll(r.Body)
				if bytes.Contains(body, []byte(`"tools/call"`)) {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			next.ServeHTTP(w, r)
		})
	})
	r, err := startRemote(t, ts.URL+"/mcp", nil, mcpx.Options{CallTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	drop.Store(true)
	_, _, err = r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), nil)
	var de *mcpx.DownstreamError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "downstream 0 ("+ts.URL+"/mcp) failed") {
		t.Fatalf("call through a dropped connection: %v", err)
	}
}

// TestRemoteLegacySSE: a server of the older HTTP+SSE transport, which
// refuses the streamable POST, is reached through the SDK's SSE client.
func TestRemoteLegacySSE(t *testing.T) {
	srv := mcptest.NewServer(mcptest.Options{Name: "legacy"})
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	var stderr bytes.Buffer
	r, err := startRemote(t, ts.URL, nil, mcpx.Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"old"}`), nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "legacy: old" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if !strings.Contains(stderr.String(), "connected with the older HTTP+SSE transport") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestHeadersOnCommand: headers are for URLs only.
func TestHeadersOnCommand(t *testing.T) {
	_, err := mcpx.Start(context.Background(), []string{server("a")}, mcpx.Options{Headers: [][]mcpx.Header{{{Name: "X-A", Value: "1"}}}})
	if err == nil || !strings.Contains(err.Error(), "request headers apply only to a server given by its http:// or https:// URL") {
		t.Fatalf("err %v", err)
	}
}
