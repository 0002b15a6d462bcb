package lsp_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/lsp"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// TestUnknownDocument: every request about a document that was never
// opened is a protocol error, and the session goes on.
func TestUnknownDocument(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	u := uri.File("/nowhere/never-opened.skill.md")
	id := protocol.TextDocumentIdentifier{URI: u}
	at := docPos(u, pos(0, 0))
	for method, params := range map[string]any{
		protocol.MethodTextDocumentHover:          &protocol.HoverParams{TextDocumentPositionParams: at},
		protocol.MethodTextDocumentCompletion:     &protocol.CompletionParams{TextDocumentPositionParams: at},
		protocol.MethodTextDocumentDefinition:     &protocol.DefinitionParams{TextDocumentPositionParams: at},
		protocol.MethodTextDocumentReferences:     &protocol.ReferenceParams{TextDocumentPositionParams: at},
		protocol.MethodTextDocumentRename:         &protocol.RenameParams{TextDocumentPositionParams: at, NewName: "x"},
		protocol.MethodTextDocumentPrepareRename:  &protocol.PrepareRenameParams{TextDocumentPositionParams: at},
		protocol.MethodTextDocumentFormatting:     &protocol.DocumentFormattingParams{TextDocument: id},
		protocol.MethodTextDocumentDocumentSymbol: &protocol.DocumentSymbolParams{TextDocument: id},
		protocol.MethodTextDocumentCodeAction:     &protocol.CodeActionParams{TextDocument: id},
		protocol.MethodTextDocumentFoldingRange:   &protocol.FoldingRangeParams{TextDocumentPositionParams: at},
		protocol.MethodSemanticTokensFull:         &protocol.SemanticTokensParams{TextDocument: id},
	} {
		var res any
		if err := c.call(method, params, &res); rpcCode(err) != jsonrpc2.InvalidParams {
			t.Errorf("%s on an unknown document: %v (code %d), want an invalid-params error", method, err, rpcCode(err))
		}
	}
	// Changing or closing an unknown document is logged, not fatal.
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: id, Version: 2}})
	c.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: id})
	c.nextDiagnostics() // closing clears, harmlessly
	c.openFile("bookings.skill.md")
}

// TestOutOfRange: positions past the end give empty results, not errors;
// a change whose range lies past the end is refused and leaves the
// document as it was.
func TestOutOfRange(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	u := c.openFile("bookings.skill.md")
	before := observe(t, c, u)
	for _, p := range []protocol.Position{pos(10000, 0), pos(35, 0), pos(0, 1<<31)} {
		at := docPos(u, p)
		var h *protocol.Hover
		var list *protocol.CompletionList
		var locs []protocol.Location
		var actions []protocol.CodeAction
		for method, call := range map[string]struct{ params, res any }{
			protocol.MethodTextDocumentHover:      {&protocol.HoverParams{TextDocumentPositionParams: at}, &h},
			protocol.MethodTextDocumentCompletion: {&protocol.CompletionParams{TextDocumentPositionParams: at}, &list},
			protocol.MethodTextDocumentDefinition: {&protocol.DefinitionParams{TextDocumentPositionParams: at}, &locs},
			protocol.MethodTextDocumentReferences: {&protocol.ReferenceParams{TextDocumentPositionParams: at}, &locs},
			protocol.MethodTextDocumentCodeAction: {&protocol.CodeActionParams{TextDocument: at.TextDocument, Range: protocol.Range{Start: p, End: p}}, &actions},
		} {
			if err := c.call(method, call.params, call.res); err != nil {
				t.Errorf("%s at %v: %v", method, p, err)
			}
		}
	}
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: rng(9000, 0, 9000, 1), Text: "x"}},
	})
	if observe(t, c, u) != before {
		t.Error("a refused change altered the document")
	}
}

// hostile returns document texts no editor should ever send, and all
// that one might.
func hostile() map[string]string {
	r := rand.New(rand.NewPCG(1, 2))
	bin := make([]byte, 10<<20)
	for i := range bin {
		bin[i] = byte(r.UintN(256))
	}
	lines := strings.Repeat("### Step 1 — x\n- action: t {\"a\": \"{{\n- assert: json.\n- bind: \n- effect\n", 4000)
	return map[string]string{
		"binary 10 MB":     strings.ToValidUTF8(string(bin), "\uFFFD"),
		"half-typed lines": lines,
		"one long line":    strings.Repeat("{{x}}🙂—", 300000),
		"deep json":        "---\nname: x\ndescription: y\n---\n### Step 1 — x\n- action: t " + strings.Repeat("[", 100000) + "\n- effect: read\n",
		"empty":            "",
		"only a header":    "### Step 1 — x",
	}
}

// TestHostileDocuments opens hostile documents and asks for every feature
// at several positions: no request fails or hangs, and the server still
// answers afterwards.
func TestHostileDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("large documents")
	}
	c := newClient(t, testdataRoot(t))
	for name, text := range hostile() {
		u, _ := c.open(strings.ReplaceAll(name, " ", "-")+".skill.md", text)
		lines := uint32(strings.Count(text, "\n"))
		for _, p := range []protocol.Position{pos(1, 3), pos(lines/2, 7), pos(lines, 100000)} {
			at := docPos(u, p)
			var res any
			for method, params := range map[string]any{
				protocol.MethodTextDocumentHover:      &protocol.HoverParams{TextDocumentPositionParams: at},
				protocol.MethodTextDocumentCompletion: &protocol.CompletionParams{TextDocumentPositionParams: at},
				protocol.MethodTextDocumentDefinition: &protocol.DefinitionParams{TextDocumentPositionParams: at},
				protocol.MethodTextDocumentReferences: &protocol.ReferenceParams{TextDocumentPositionParams: at},
				protocol.MethodTextDocumentCodeAction: &protocol.CodeActionParams{TextDocument: at.TextDocument, Range: protocol.Range{Start: p, End: p}},
			} {
				if err := c.call(method, params, &res); err != nil {
					t.Errorf("%s: %s at %v: %v", name, method, p, err)
				}
			}
		}
		observe(t, c, u)
		c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: rng(lines/2, 0, lines/2, 0), Text: "x\n"}},
		})
		<-c.clock.scheduled
		c.clock.fire()
		c.nextDiagnostics()
		c.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		c.nextDiagnostics()
	}
}

// session connects to a server without initializing it.
func session(t *testing.T) (jsonrpc2.Conn, chan error, net.Conn) {
	server, end := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- lsp.Serve(context.Background(), server, lsp.Options{}) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(end))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() { conn.Close() })
	return conn, served, end
}

func waitServed(t *testing.T, served chan error) error {
	t.Helper()
	select {
	case err := <-served:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
		return nil
	}
}

// TestLifecycle covers the protocol's session rules and the three ways a
// session ends.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	t.Run("requests before initialize", func(t *testing.T) {
		conn, _, _ := session(t)
		var h any
		_, err := conn.Call(ctx, protocol.MethodTextDocumentHover, &protocol.HoverParams{}, &h)
		if rpcCode(err) != jsonrpc2.ServerNotInitialized {
			t.Errorf("hover before initialize: %v", err)
		}
	})
	t.Run("exit after shutdown", func(t *testing.T) {
		conn, served, _ := session(t)
		var res protocol.InitializeResult
		if _, err := conn.Call(ctx, protocol.MethodInitialize, &protocol.InitializeParams{}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Capabilities.TextDocumentSync == nil || res.ServerInfo.Name != "reelier" {
			t.Errorf("initialize result %+v", res)
		}
		if _, err := conn.Call(ctx, protocol.MethodInitialize, &protocol.InitializeParams{}, &res); rpcCode(err) != jsonrpc2.InvalidRequest {
			t.Errorf("second initialize: %v", err)
		}
		var any1 any
		if _, err := conn.Call(ctx, "textDocument/unknownThing", nil, &any1); rpcCode(err) != jsonrpc2.MethodNotFound {
			t.Errorf("unknown method: %v", err)
		}
		if _, err := conn.Call(ctx, protocol.MethodTextDocumentHover, []int{1, 2}, &any1); rpcCode(err) != jsonrpc2.InvalidParams {
			t.Errorf("malformed params: %v", err)
		}
		if err := conn.Notify(ctx, "$/cancelRequest", map[string]int{"id": 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Call(ctx, protocol.MethodTextDocumentHover, &protocol.HoverParams{}, &any1); rpcCode(err) != jsonrpc2.InvalidRequest {
			t.Errorf("hover after shutdown: %v", err)
		}
		if err := conn.Notify(ctx, protocol.MethodExit, nil); err != nil {
			t.Fatal(err)
		}
		if err := waitServed(t, served); err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	})
	t.Run("exit without shutdown", func(t *testing.T) {
		conn, served, _ := session(t)
		if err := conn.Notify(ctx, protocol.MethodExit, nil); err != nil {
			t.Fatal(err)
		}
		if err := waitServed(t, served); !errors.Is(err, lsp.ErrExitWithoutShutdown) {
			t.Errorf("Serve = %v, want ErrExitWithoutShutdown", err)
		}
	})
	t.Run("stream closes", func(t *testing.T) {
		_, served, end := session(t)
		end.Close()
		if err := waitServed(t, served); err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		server, _ := net.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- lsp.Serve(ctx, server, lsp.Options{}) }()
		cancel()
		if err := waitServed(t, served); err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	})
}
