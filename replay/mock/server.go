package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/mcphttp"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/tool"
)

// command names reelier mock in the HTTP guard's messages.
const command = "reelier mock"

// Options configure a Server.
type Options struct {
	// Match compares arguments; Exact if empty.
	Match Mode
	// Ignore are argument paths left out of every comparison.
	Ignore []Path
	// Stderr receives a line for each call answered with an error or a
	// repeat; nil discards them.
	Stderr io.Writer
	// Version is reported to clients as the server's version.
	Version string
	// Redactor blanks the secrets in a call's arguments before they are
	// compared with the (redacted) recording or shown in an answer or on
	// stderr; nil means the one the environment configures
	// (trace.RedactorFromEnv).
	Redactor *redact.Redactor
	// Fail, when set, injects a failure (reelier mock --fail); the book
	// must have its call (Book.CheckFault).
	Fail *Fault
}

// Server is an MCP server that answers from recordings.
type Server struct {
	book    *Book
	matcher Matcher
	mcp     *mcp.Server
	stderr  io.Writer
	errMu   sync.Mutex
	redact  *redact.Redactor
	fail    *Fault
	// drifted is the tool FaultSchema serves changed; "" when none.
	drifted string

	mu       sync.Mutex
	sessions map[weak.Pointer[mcp.ServerSession]]*cursor
	// noSession stands for the session of a call made without one
	// (Call from Go).
	noSession *mcp.ServerSession
}

// New returns a server of the book's tools.
func New(book *Book, opts Options) *Server {
	if opts.Match == "" {
		opts.Match = Exact
	}
	s := &Server{book: book, matcher: Matcher{Mode: opts.Match, Ignore: opts.Ignore}, stderr: opts.Stderr,
		sessions: map[weak.Pointer[mcp.ServerSession]]*cursor{}, noSession: &mcp.ServerSession{}}
	if s.stderr == nil {
		s.stderr = io.Discard
	}
	s.fail = opts.Fail
	if f := opts.Fail; f != nil && f.Kind == FaultSchema && f.Call >= 1 && f.Call <= len(book.calls) {
		s.drifted = book.calls[f.Call-1].Tool
	}
	s.redact = opts.Redactor
	if s.redact == nil {
		s.redact = redact.RedactorFromEnv()
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "reelier-mock", Title: "Reelier mock (answers from recordings)", Version: opts.Version},
		&mcp.ServerOptions{HasTools: true})
	s.mcp.AddReceivingMiddleware(s.passthrough)
	for _, t := range book.Tools {
		err := mcpx.Guard(func() { s.mcp.AddTool(t.Typed, s.handler(t)) })
		if err == nil {
			continue
		}
		t.loosen()
		if err2 := mcpx.Guard(func() { s.mcp.AddTool(t.Typed, s.handler(t)) }); err2 != nil {
			s.warnf("tool %q is not served: the MCP SDK refuses it: %v", t.Name, err2)
			continue
		}
		s.warnf("tool %q: the MCP SDK refuses its recorded definition (%v); served with a permissive input schema", t.Name, err)
	}
	return s
}

// MCP returns the underlying MCP server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Serve serves one client on t (stdio) until it disconnects or ctx ends.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Handler returns the streamable HTTP transport at mcphttp.Path, guarded
// like every Reelier MCP listener (internal/mcphttp).
func (s *Server) Handler(token string) http.Handler {
	return mcphttp.Handler(s.mcp, token, command+" answers MCP at "+mcphttp.Path)
}

// ServeListener serves the HTTP transport on ln until ctx ends. Without a
// token it refuses a listener not bound to a loopback address.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	return mcphttp.ServeListener(ctx, ln, s.Handler(token), token, command)
}

// cursor returns the session's answers so far. Each client session (the
// stdio client, or each HTTP session) is answered from the start of the
// recordings; a session's entry goes when the session is collected.
func (s *Server) cursor(ss *mcp.ServerSession) *cursor {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss == nil {
		ss = s.noSession
	}
	key := weak.Make(ss)
	if c, ok := s.sessions[key]; ok {
		return c
	}
	c := newCursor()
	s.sessions[key] = c
	runtime.AddCleanup(ss, func(k weak.Pointer[mcp.ServerSession]) {
		s.mu.Lock()
		delete(s.sessions, k)
		s.mu.Unlock()
	}, key)
	return c
}

// warnf prints one line on stderr, escaped for a terminal.
func (s *Server) warnf(format string, args ...any) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	fmt.Fprintln(s.stderr, "reelier mock: "+termtext.Line(fmt.Sprintf(format, args...)))
}

type rawKey struct{}

// rawSlot receives a call's exact answer from the tool handler.
type rawSlot struct{ raw json.RawMessage }

// passthrough serves the recorded JSON exactly: tool definitions in
// tools/list, results in tools/call; and answers a call of a tool the
// recordings never had with an error result that names those they have
// (the SDK would refuse it with a protocol error).
func (s *Server) passthrough(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				raw := make(map[string]json.RawMessage, len(s.book.Tools))
				for _, t := range s.book.Tools {
					raw[t.Name] = t.Def
					if t.Name == s.drifted {
						raw[t.Name] = schemaChanged(t.Def)
					}
				}
				return &mcpx.RawToolList{ListToolsResult: list, Raw: raw}, nil
			}
			return res, err
		case "tools/call":
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				if _, known := s.book.Tool(call.Params.Name); !known {
					msg := fmt.Sprintf("reelier mock: tool %q was never recorded; the recordings have %s", call.Params.Name, list(s.book.Names()))
					s.warnf("%s", strings.TrimPrefix(msg, "reelier mock: "))
					return errorResult(msg), nil
				}
			}
			if call, ok := req.(*mcp.CallToolRequest); ok {
				n := s.cursor(call.Session).count()
				if res, injected := s.fail.inject(ctx, n); injected {
					s.warnf("call %d: %s", n, s.fail.note())
					return res, nil
				}
			}
			slot := &rawSlot{}
			res, err := next(context.WithValue(ctx, rawKey{}, slot), method, req)
			if call, ok := res.(*mcp.CallToolResult); ok && err == nil && slot.raw != nil {
				return &mcpx.RawCallResult{CallToolResult: call, Raw: slot.raw}, nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// handler answers the calls of one tool.
func (s *Server) handler(t *Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, raw := s.Call(ctx, req.Session, t, req.Params.Arguments)
		if slot, ok := ctx.Value(rawKey{}).(*rawSlot); ok {
			slot.raw = raw
		}
		return res, nil
	}
}

// Call answers one call of t with arguments args in session ss: the
// typed result, and its exact JSON (nil when the typed one is exact).
func (s *Server) Call(ctx context.Context, ss *mcp.ServerSession, t *Tool, args json.RawMessage) (*mcp.CallToolResult, json.RawMessage) {
	if len(t.Calls) == 0 {
		msg := fmt.Sprintf("reelier mock: tool %q is listed in %s but was never called there, so there is no result to answer with", t.Name, t.From)
		s.warnf("%s", strings.TrimPrefix(msg, "reelier mock: "))
		return errorResult(msg), nil
	}
	// The call is compared, and shown, as a recording would keep it:
	// redacted like the trace it is compared with.
	if len(bytes.TrimSpace(args)) > 0 {
		red, err := s.redact.JSON(args)
		if err != nil {
			return errorResult(fmt.Sprintf("reelier mock: the arguments of %s are not JSON: %v", t.Name, err)), nil
		}
		args = red
	}
	got, err := parseArgs(args)
	if err != nil {
		return errorResult(fmt.Sprintf("reelier mock: the arguments of %s are not JSON: %v", t.Name, err)), nil
	}
	a := s.matcher.answer(t, got, s.cursor(ss))
	if a.Recorded == nil {
		msg := s.unmatched(t, args, a)
		s.warnf("%s", strings.TrimPrefix(msg, "reelier mock: "))
		return errorResult(msg), nil
	}
	rec := a.Recorded
	if rec.Result == nil {
		msg := fmt.Sprintf("reelier mock: the recorded call of %s at %s has no result (the recording stopped before the tool answered), so there is nothing to answer with", t.Name, rec.Where())
		s.warnf("%s", strings.TrimPrefix(msg, "reelier mock: "))
		return errorResult(msg), nil
	}
	res, raw := served(rec)
	if a.Repeat {
		s.warnf("%s: every recorded call that matches was answered already in this session; answering with the last one (%s) again", t.Name, rec.Where())
		res.Meta = mcp.Meta{"reelier/mock": map[string]any{"repeated": true, "recorded": rec.Where()}}
	}
	return res, raw
}

// unmatched explains a call no recorded call matches.
func (s *Server) unmatched(t *Tool, args json.RawMessage, a Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "reelier mock: no recorded call of %s matches these arguments (--match %s): %s", t.Name, s.matcher.Mode, words.ClipRunes(compact(args), 200))
	if a.Nearest != nil {
		fmt.Fprintf(&b, "; the nearest recorded call is %s with %s; what differs: %s", a.Nearest.Where(), words.ClipRunes(compact(a.Nearest.Args), 200), strings.Join(describe(a.Differ), "; "))
	}
	return b.String()
}

// compact renders raw JSON on one line.
func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// served is the result a recorded call is answered with, typed and as
// exact JSON:
//
//   - an MCP tool result (an object with a content list) as recorded,
//     with isError set when the recording says the call failed (ok:
//     false);
//   - a body the size-capped profile cut to a preview: one text block
//     holding the preview;
//   - any other body: one text block holding the body's JSON text.
func served(rec *Recorded) (*mcp.CallToolResult, json.RawMessage) {
	body := rec.Result.Body
	if tr, ok := rec.Result.Truncated(); ok {
		return textResult(tr.Preview, !rec.Result.OK), nil
	}
	parsed, err := tool.ParseValidToolResult(body)
	if err != nil {
		return textResult(string(body), !rec.Result.OK), nil
	}
	raw := body
	if !rec.Result.OK && !parsed.IsError {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) == nil {
			m["isError"] = json.RawMessage("true")
			if b, err := json.Marshal(m); err == nil {
				raw = b
			}
		}
	}
	// The typed result carries only the envelope the SDK adds to; the
	// content is served from raw.
	return &mcp.CallToolResult{Content: []mcp.Content{}, IsError: parsed.IsError || !rec.Result.OK}, raw
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

func errorResult(msg string) *mcp.CallToolResult { return textResult(msg, true) }

// list renders names for a message: "a, b and c", or "no tools".
func list(names []string) string {
	switch len(names) {
	case 0:
		return "no tools"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
