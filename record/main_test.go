package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/record"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/testkit/mcptest"
)

// TestMain lets this test binary double as the downstream test server:
// children started with mcptest.ServeEnv set serve MCP instead of testing.
// Setting it here, after the check, makes every downstream the tests
// start (directly or through a reelier binary) inherit it.
func TestMain(m *testing.M) {
	serveRelayIfAsked()
	serveModernIfAsked()
	editToolsIfAsked()
	mcptest.ServeIfAsked()
	os.Setenv(mcptest.ServeEnv, "1")
	os.Exit(m.Run())
}

// server returns the --wrap command that starts this binary as a test
// server with the given name.
func server(name string) string {
	return fmt.Sprintf("'%s' -name %s", os.Args[0], name)
}

// syncBuffer is a bytes.Buffer safe for the proxy's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a proxy in this process, in front of test servers running as
// child processes, and a client session connected to it in memory.
type fixture struct {
	proxy    *record.Proxy
	session  *mcp.ClientSession
	dir      string
	stderr   *syncBuffer
	serveErr chan error
}

// start starts a proxy wrapping the named test servers.
func start(t testing.TB, names ...string) *fixture {
	t.Helper()
	var wrap []string
	for _, n := range names {
		wrap = append(wrap, server(n))
	}
	return startWrap(t, wrap...)
}

func startWrap(t testing.TB, wrap ...string) *fixture {
	t.Helper()
	return startDir(t, t.TempDir(), wrap...)
}

// startDir starts a proxy that records into dir.
func startDir(t testing.TB, dir string, wrap ...string) *fixture {
	t.Helper()
	f := &fixture{dir: dir, stderr: &syncBuffer{}, serveErr: make(chan error, 1)}
	ctx := context.Background()
	p, err := record.Start(ctx, wrap, record.Options{
		TraceDir: f.dir,
		Redactor: redact.NewRedactor(nil, nil),
		Now:      clock(),
		Stderr:   f.stderr,
		Version:  "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	f.proxy = p
	st, ct := mcp.NewInMemoryTransports()
	go func() { f.serveErr <- p.Serve(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	f.session, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.session.Close()
		<-f.serveErr
		p.Close()
	})
	return f
}

// startErr starts a proxy that is expected to fail.
func startErr(wrap ...string) (*record.Proxy, error) {
	p, err := record.Start(context.Background(), wrap, record.Options{StartTimeout: 20 * time.Second})
	if err == nil {
		p.Close()
	}
	return p, err
}

// clock is a trace clock that starts at a fixed instant and advances a
// millisecond a reading.
func clock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 7, 18, 14, 2, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

// call calls a tool and returns its text and whether it is an error.
func (f *fixture) call(t testing.TB, name string, args any) (string, bool) {
	t.Helper()
	return callSession(t, f.session, name, args, nil)
}

func callSession(t testing.TB, cs *mcp.ClientSession, name string, args any, meta mcp.Meta) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return resultText(res), res.IsError
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// startRecording starts a recording and returns the trace path.
func (f *fixture) startRecording(t testing.TB, name string) string {
	t.Helper()
	text, isErr := f.call(t, "reelier_start_recording", map[string]any{"name": name})
	if isErr || !strings.HasPrefix(text, "Recording to ") {
		t.Fatalf("start: %q (isError %v)", text, isErr)
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(text, "Recording to "), ". Call ")
	return path
}

// normalized returns the trace's lines with every ms set to 0, the one
// field the clock does not fix.
func normalized(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad trace line %q: %v", line, err)
		}
		if _, ok := m["ms"]; ok {
			line = strings.Replace(line, `"ms":`+string(m["ms"]), `"ms":0`, 1)
		}
		out.WriteString(line)
	}
	return out.String()
}
