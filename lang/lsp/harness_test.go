package lsp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/reelier/reelier/lang/lsp"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// fakeClock is a Clock the test advances by hand: nothing fires until
// fire is called, so debouncing is tested without sleeping.
type fakeClock struct {
	mu        sync.Mutex
	timers    []*fakeTimer
	scheduled chan struct{} // receives one value per AfterFunc call
}

type fakeTimer struct {
	f       func()
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{scheduled: make(chan struct{}, 1000)} }

func (c *fakeClock) AfterFunc(_ time.Duration, f func()) func() bool {
	c.mu.Lock()
	t := &fakeTimer{f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.scheduled <- struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// fire runs every timer that is due and was not stopped, and reports how
// many ran.
func (c *fakeClock) fire() int {
	c.mu.Lock()
	due := c.timers
	c.timers = nil
	c.mu.Unlock()
	n := 0
	for _, t := range due {
		if !t.stopped {
			t.f()
			n++
		}
	}
	return n
}

// client drives a server over a real JSON-RPC connection on net.Pipe.
type client struct {
	t      testing.TB
	conn   jsonrpc2.Conn
	clock  *fakeClock
	diags  chan *protocol.PublishDiagnosticsParams
	served chan error
	root   string
}

// today is the date the tests' lint runs take as today.
var today = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// newClient starts a server on one end of a pipe, connects a client to the
// other end and initializes the session with root as workspace folder.
// The session is shut down when the test ends.
func newClient(t testing.TB, root string) *client {
	t.Helper()
	server, end := net.Pipe()
	c := &client{t: t, clock: newFakeClock(), diags: make(chan *protocol.PublishDiagnosticsParams, 1000), served: make(chan error, 1), root: root}
	go func() {
		c.served <- lsp.Serve(context.Background(), server, lsp.Options{Version: "test", Clock: c.clock, Today: today})
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(end))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("bad publishDiagnostics: %v", err)
			}
			c.diags <- &p
		}
		return reply(ctx, nil, nil)
	})
	var res protocol.InitializeResult
	params := &protocol.InitializeParams{
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: "testdata"}},
		Capabilities: protocol.ClientCapabilities{TextDocument: &protocol.TextDocumentClientCapabilities{
			Rename: &protocol.RenameClientCapabilities{PrepareSupport: true},
		}},
	}
	if err := c.call(protocol.MethodInitialize, params, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	t.Cleanup(c.close)
	return c
}

// close ends the session with shutdown and exit, and checks that the
// server stopped cleanly.
func (c *client) close() {
	if c.conn == nil {
		return
	}
	if err := c.call(protocol.MethodShutdown, nil, nil); err != nil {
		c.t.Errorf("shutdown: %v", err)
	}
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.served:
		if err != nil {
			c.t.Errorf("Serve returned %v after shutdown and exit", err)
		}
	case <-time.After(10 * time.Second):
		c.t.Error("the server did not stop after exit")
	}
	c.conn.Close()
	c.conn = nil
}

func (c *client) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// nextDiagnostics waits for the next publishDiagnostics notification.
func (c *client) nextDiagnostics() *protocol.PublishDiagnosticsParams {
	c.t.Helper()
	select {
	case p := <-c.diags:
		return p
	case <-time.After(20 * time.Second):
		c.t.Fatal("no diagnostics were published")
		return nil
	}
}

// open sends didOpen for a file of testdata (or inline text when name has
// no such file) and returns its URI and the diagnostics published for it.
func (c *client) open(name, text string) (protocol.DocumentURI, *protocol.PublishDiagnosticsParams) {
	c.t.Helper()
	u := uri.File(filepath.Join(c.root, name))
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "markdown", Version: 1, Text: text}})
	return u, c.nextDiagnostics()
}

// openFile opens lsp/testdata/<name>.
func (c *client) openFile(name string) protocol.DocumentURI {
	c.t.Helper()
	u, _ := c.open(name, readTestdata(c.t, name))
	return u
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testdataRoot is the absolute path of lsp/testdata, the tests' workspace.
func testdataRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// workspaceRoot returns a temporary workspace holding the skills of
// lsp/testdata and, under .reelier/traces, the traces of
// lsp/testdata/traces (a .reelier folder cannot be committed: it is
// ignored everywhere).
func workspaceRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	traces := filepath.Join(root, ".reelier", "traces")
	if err := os.MkdirAll(traces, 0o755); err != nil {
		t.Fatal(err)
	}
	for pattern, dir := range map[string]string{"testdata/*.skill.md": root, "testdata/traces/*.jsonl": traces} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// pos is a protocol position (0-based line, UTF-16 column).
func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: pos(l1, c1), End: pos(l2, c2)}
}

func docPos(u protocol.DocumentURI, p protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: p}
}

func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }

func utf16String(u []uint16) string { return string(utf16.Decode(u)) }
