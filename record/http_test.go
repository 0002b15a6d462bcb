package record_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/trace"
)

// httpProxy is a `reelier mcp --http` process.
type httpProxy struct {
	cmd    *exec.Cmd
	url    string // the MCP endpoint it announced
	dir    string // its trace dir
	stderr *strings.Builder
	done   chan struct{}
}

var servingLine = regexp.MustCompile(`^reelier mcp: serving MCP at (http://127\.0\.0\.1:\d+/mcp) \(`)

// startHTTPProxy runs `reelier mcp --http 127.0.0.1:0` with args and env
// and waits for the line that says where it serves.
func startHTTPProxy(t testing.TB, env []string, args ...string) *httpProxy {
	t.Helper()
	p := &httpProxy{dir: t.TempDir(), stderr: &strings.Builder{}, done: make(chan struct{})}
	p.cmd = exec.Command(reelierBin(t), append([]string{"mcp", "--http", "127.0.0.1:0", "--trace-dir", p.dir}, args...)...)
	p.cmd.Env = append(os.Environ(), env...)
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.stderr.WriteString(sc.Text() + "\n")
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	select {
	case u, ok := <-found:
		if !ok {
			p.cmd.Wait()
			t.Fatalf("reelier mcp --http exited before serving")
		}
		p.url = u
	case <-time.After(60 * time.Second):
		t.Fatal("reelier mcp --http did not say where it serves within 60s")
	}
	return p
}

// stop sends SIGTERM and returns the exit code.
func (p *httpProxy) stop(t testing.TB) int {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	err := p.cmd.Wait()
	<-p.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// bearerClient is an HTTP client that sends the token.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: bearerRT{token}}
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t testing.TB, url string, client *http.Client) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestMCPOverHTTP: `reelier mcp --http` serves the recording proxy to an
// agent over streamable HTTP, in front of a stdio server: a session
// recorded over HTTP, the trace finished on SIGTERM, exit 0.
func TestMCPOverHTTP(t *testing.T) {
	p := startHTTPProxy(t, nil, "--wrap", server("a"))
	cs, err := connectHTTP(t, p.url, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.stderr)
	}
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "overhttp"}, nil)
	if text, _ := callSession(t, cs, "echo", map[string]any{"text": "hi"}, nil); text != "a: hi" {
		t.Errorf("echo → %q", text)
	}
	// A second agent shares the downstreams and the recording.
	cs2, err := connectHTTP(t, p.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := callSession(t, cs2, "echo", map[string]any{"text": "two"}, nil); text != "a: two" {
		t.Errorf("second agent's echo → %q", text)
	}
	cs.Close()
	cs2.Close()
	if code := p.stop(t); code != 0 {
		t.Errorf("exit %d on SIGTERM\n%s", code, p.stderr)
	}
	tr, err := trace.Load(filepath.Join(p.dir, "overhttp-1.jsonl"))
	if err != nil {
		t.Fatalf("%v\n%s", err, p.stderr)
	}
	var tools []string
	for _, r := range tr.Records {
		if c, ok := r.(*trace.Call); ok {
			tools = append(tools, c.Tool)
		}
	}
	if strings.Join(tools, ",") != "echo,echo" {
		t.Errorf("recorded calls %v", tools)
	}
}

// TestMCPOverHTTPToken: with --token-env, a request without the token or
// with a wrong one gets 401; with it, the proxy answers.
func TestMCPOverHTTPToken(t *testing.T) {
	const token = "0123456789abcdef-http-token"
	p := startHTTPProxy(t, []string{"PROXY_TOKEN=" + token}, "--token-env", "PROXY_TOKEN", "--wrap", server("a"))
	if !strings.Contains(p.stderr.String(), "bearer token from $PROXY_TOKEN required") {
		t.Errorf("stderr: %s", p.stderr)
	}
	for _, c := range []*http.Client{nil, bearerClient("wrong-token-0123456789")} {
		if _, err := connectHTTP(t, p.url, c); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("connected without the right token: %v", err)
		}
	}
	resp, err := http.Post(p.url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "missing or wrong bearer token") {
		t.Errorf("no token: %d %s", resp.StatusCode, body)
	}
	cs, err := connectHTTP(t, p.url, bearerClient(token))
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := callSession(t, cs, "echo", map[string]any{"text": "ok"}, nil); text != "a: ok" {
		t.Errorf("echo → %q", text)
	}
}

// TestRemoteDropRecordedOnce: a remote server that drops the connection
// during a recorded call: the agent gets an error result naming the
// server, and the trace holds that call once, with one failed result.
func TestRemoteDropRecordedOnce(t *testing.T) {
	srv := mcptest.NewServer(mcptest.Options{Name: "remote"})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var posts atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				posts.Add(1)
				if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
					conn.Close()
				}
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	f := startWrap(t, ts.URL+"/mcp")
	f.call(t, "reelier_start_recording", map[string]any{"name": "drop"})
	text, isErr := f.call(t, "echo", map[string]any{"text": "hi"})
	if !isErr || !strings.Contains(text, "downstream 0 ("+ts.URL+"/mcp) failed") {
		t.Errorf("echo through a dropped connection: %q (error %v)", text, isErr)
	}
	f.call(t, "reelier_stop_recording", nil)
	tr, err := trace.Load(filepath.Join(f.dir, "drop-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range tr.Records {
		switch r := r.(type) {
		case *trace.Call:
			kinds = append(kinds, "call "+r.Tool)
		case *trace.Result:
			kinds = append(kinds, fmt.Sprintf("result ok=%v", r.OK))
		}
	}
	if strings.Join(kinds, ", ") != "call echo, result ok=false" {
		t.Errorf("trace records: %v", kinds)
	}
	if posts.Load() != 1 {
		t.Errorf("the call was sent %d times", posts.Load())
	}
}
