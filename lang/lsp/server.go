package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// DefaultDebounce is how long typing must pause before the diagnostics of
// a changed document are published.
const DefaultDebounce = 150 * time.Millisecond

// Options configure a server.
type Options struct {
	// Version is reported to the client in serverInfo.
	Version string
	// Debounce is the pause after a change before diagnostics are
	// published; zero means DefaultDebounce.
	Debounce time.Duration
	// Clock schedules debounced work; nil means real time.
	Clock Clock
	// Today is the date lint rules take as today; zero means the current
	// date.
	Today time.Time
	// Log receives the server's own errors (never the protocol traffic);
	// nil discards them.
	Log io.Writer
}

// errAlreadyInitialized answers a second initialize request.
// RequestFailed is the LSP error code (-32803, LSP 3.17) for a request that
// was valid but that the server refuses, such as a rename onto a name already
// in use. Editors show its message to the user; go.lsp.dev/jsonrpc2 predates
// the code and has no constant for it.
const RequestFailed jsonrpc2.Code = -32803

var errAlreadyInitialized = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is already initialized")

// ErrExitWithoutShutdown is what Serve returns when the client sent exit
// without asking for shutdown first; the protocol asks the server to exit
// with status 1 then.
var ErrExitWithoutShutdown = errors.New("the client sent exit before shutdown")

// Serve runs a language server for one client over rwc (LSP base
// protocol: Content-Length framed JSON-RPC) until the client sends exit,
// the stream closes, or ctx ends. It returns nil on a clean end: exit after
// shutdown, or the input ending between two messages. A malformed message
// in a well-formed frame is answered with a JSON-RPC error and logged, and
// the session goes on; a broken frame (a bad header, the input ending
// inside a frame) ends it with a *FrameError.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := newServer(opts)
	stream := newFrameStream(rwc, s.log)
	s.conn = jsonrpc2.NewConn(stream)
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
		s.conn.Close()
		<-s.conn.Done()
	}
	s.pub.stop()
	if s.exited && !s.shutdown {
		return ErrExitWithoutShutdown
	}
	if err := stream.err(); err != nil {
		return fmt.Errorf("reading the client's messages: %w", err)
	}
	return nil
}

// Server is the state of one client session. Requests are handled one at
// a time, in the order they arrive; only debounced diagnostics run on
// their own.
type Server struct {
	conn  jsonrpc2.Conn
	opts  Options
	log   *log.Logger
	store *Store
	pub   *publisher
	ws    *workspace

	initialized, shutdown, exited bool
}

func newServer(opts Options) *Server {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Server{opts: opts, log: log.New(opts.Log, "reelier lsp: ", log.LstdFlags), ws: &workspace{}}
	s.store = newStore(&linters{today: opts.Today})
	s.pub = &publisher{store: s.store, clock: opts.Clock, delay: opts.Debounce, send: s.publishDiagnostics, timers: map[protocol.DocumentURI]func() bool{}}
	return s
}

func (s *Server) publishDiagnostics(p *protocol.PublishDiagnosticsParams) {
	if err := s.conn.Notify(context.Background(), protocol.MethodTextDocumentPublishDiagnostics, p); err != nil {
		s.log.Printf("publishing diagnostics for %s: %v", p.URI, err)
	}
}

// method handles one request or notification with its raw parameters.
type method func(s *Server, params json.RawMessage) (any, error)

// typed adapts a handler of decoded parameters.
func typed[P, R any](f func(*Server, *P) (R, error)) method {
	return func(s *Server, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
			}
		}
		return f(s, &p)
	}
}

// methods maps every method the server answers to its handler.
var methods = map[string]method{
	protocol.MethodInitialize:                 typed((*Server).initialize),
	protocol.MethodInitialized:                typed((*Server).ignore),
	protocol.MethodShutdown:                   typed((*Server).shutdownRequest),
	protocol.MethodExit:                       typed((*Server).exit),
	protocol.MethodTextDocumentDidOpen:        typed((*Server).didOpen),
	protocol.MethodTextDocumentDidChange:      (*Server).didChange,
	protocol.MethodTextDocumentDidSave:        typed((*Server).didSave),
	protocol.MethodTextDocumentDidClose:       typed((*Server).didClose),
	protocol.MethodTextDocumentFormatting:     typed((*Server).formatting),
	protocol.MethodTextDocumentCompletion:     typed((*Server).completion),
	protocol.MethodTextDocumentHover:          typed((*Server).hover),
	protocol.MethodTextDocumentDefinition:     typed((*Server).definition),
	protocol.MethodTextDocumentReferences:     typed((*Server).references),
	protocol.MethodTextDocumentPrepareRename:  typed((*Server).prepareRename),
	protocol.MethodTextDocumentRename:         typed((*Server).rename),
	protocol.MethodTextDocumentDocumentSymbol: typed((*Server).documentSymbol),
	protocol.MethodTextDocumentCodeAction:     typed((*Server).codeAction),
	protocol.MethodTextDocumentFoldingRange:   typed((*Server).foldingRange),
	protocol.MethodSemanticTokensFull:         typed((*Server).semanticTokens),
}

// handle dispatches one message. It never returns an error (that would
// close the connection) unless the reply cannot be written; a panic in a
// handler becomes an internal-error reply.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	_, isCall := req.(*jsonrpc2.Call)
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in %s: %v\n%s", req.Method(), r, debug.Stack())
			err = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", req.Method(), r))
		}
	}()
	m, known := methods[req.Method()]
	switch {
	case !known && isCall:
		return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not supported: %s", req.Method()))
	case !known: // notifications such as $/cancelRequest and $/setTrace
		return nil
	case !s.initialized && req.Method() != protocol.MethodInitialize && req.Method() != protocol.MethodExit:
		if isCall {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized"))
		}
		return nil
	case s.shutdown && req.Method() != protocol.MethodExit && isCall:
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down"))
	}
	result, err := m(s, req.Params())
	if err != nil && !isCall {
		s.log.Printf("%s: %v", req.Method(), err)
	}
	return reply(ctx, result, err)
}

// document returns the open document a request names.
func (s *Server) document(uri protocol.DocumentURI) (*Document, error) {
	if d, ok := s.store.Get(uri); ok {
		return d, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown document %s: it was never opened, or was closed", uri)
}

func (s *Server) ignore(*struct{}) (any, error) { return nil, nil }

func (s *Server) shutdownRequest(*struct{}) (any, error) {
	s.shutdown = true
	return nil, nil
}

func (s *Server) exit(*struct{}) (any, error) {
	s.exited = true
	s.pub.stop()
	s.conn.Close() // ends Serve; a stream that fails to close has nothing left to say
	return nil, nil
}

func (s *Server) didOpen(p *protocol.DidOpenTextDocumentParams) (any, error) {
	s.store.Open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.pub.now(p.TextDocument.URI)
	return nil, nil
}

// didChange applies content changes. go.lsp.dev/protocol decodes a change
// without a range (the whole text) as the empty range at the start, which
// is also a valid insertion there, so the raw parameters are looked at to
// tell the two apart.
func (s *Server) didChange(raw json.RawMessage) (any, error) {
	var p protocol.DidChangeTextDocumentParams
	var probe struct {
		ContentChanges []map[string]json.RawMessage `json:"contentChanges"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &probe); err != nil || len(probe.ContentChanges) != len(p.ContentChanges) {
		return nil, fmt.Errorf("cannot read the content changes: %v", err)
	}
	changes := make([]change, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		_, hasRange := probe.ContentChanges[i]["range"]
		changes[i] = change{whole: !hasRange, rng: c.Range, text: c.Text}
	}
	if _, err := s.store.Change(p.TextDocument.URI, p.TextDocument.Version, changes); err != nil {
		return nil, err
	}
	s.pub.later(p.TextDocument.URI)
	return nil, nil
}

func (s *Server) didSave(p *protocol.DidSaveTextDocumentParams) (any, error) {
	s.pub.now(p.TextDocument.URI)
	return nil, nil
}

func (s *Server) didClose(p *protocol.DidCloseTextDocumentParams) (any, error) {
	s.store.Close(p.TextDocument.URI)
	s.pub.clear(p.TextDocument.URI)
	return nil, nil
}

func (s *Server) formatting(p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	edits, err := Format(d)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return edits, nil
}

func (s *Server) completion(p *protocol.CompletionParams) (*protocol.CompletionList, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return Completion(d, p.Position, s.tools), nil
}

// tools lists the tools of the workspace and of the other open documents.
func (s *Server) tools() []string {
	names := append([]string(nil), s.ws.Tools()...)
	for _, d := range s.store.All() {
		for _, st := range d.Skill().Steps {
			if st.Action != nil && st.Action.Tool != "" {
				names = append(names, st.Action.Tool)
			}
		}
	}
	return names
}

func (s *Server) hover(p *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return Hover(d, p.Position), nil
}

func (s *Server) definition(p *protocol.DefinitionParams) ([]protocol.Location, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return Definition(d, p.Position), nil
}

func (s *Server) references(p *protocol.ReferenceParams) ([]protocol.Location, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return References(d, p.Position, p.Context.IncludeDeclaration), nil
}

func (s *Server) prepareRename(p *protocol.PrepareRenameParams) (*protocol.Range, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	r, err := PrepareRename(d, p.Position)
	if err != nil {
		return nil, jsonrpc2.NewError(RequestFailed, err.Error())
	}
	return r, nil
}

func (s *Server) rename(p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	e, err := Rename(d, p.Position, p.NewName)
	if err != nil {
		return nil, jsonrpc2.NewError(RequestFailed, err.Error())
	}
	return e, nil
}

func (s *Server) documentSymbol(p *protocol.DocumentSymbolParams) ([]protocol.DocumentSymbol, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return Symbols(d), nil
}

func (s *Server) codeAction(p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return CodeActions(d, p.Range, p.Context.Only), nil
}

func (s *Server) foldingRange(p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return Folding(d), nil
}

func (s *Server) semanticTokens(p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return SemanticTokens(d), nil
}
