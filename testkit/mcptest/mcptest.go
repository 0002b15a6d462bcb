// Package mcptest is a small MCP server for tests of the recorder and of
// MCP-backed replay. It has tools with and without annotations (one with
// an output schema), one that returns a fresh id per call, one that fails,
// one that crashes the process on demand, one that is slow, and one whose
// result carries credentials; plus a resource, a resource template and a
// prompt.
//
// Tests run it in-process (NewServer over in-memory transports) or as a
// child process: a test binary calls Main from TestMain when ServeEnv is
// set, and the CLI tests register it as the `mcptestserver` command.
package mcptest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeEnv, when set in a test binary's environment, makes ServeIfAsked
// serve MCP on stdio instead of running tests.
const ServeEnv = "REELIER_MCPTEST_SERVE"

// Options configure a test server.
type Options struct {
	// Name is the server's name; echo replies start with it.
	Name string
	// Crash ends the process for the crash tool; os.Exit(3) if nil.
	Crash func()
	// Drift changes the tools the server lists, for tests of the drift
	// check (DriftField, DriftAnnotations, DriftGone); "" lists them as
	// they are.
	Drift string
	// OnCall, if set, is told the name of every tool called.
	OnCall func(tool string)
	// OnKey, if set, is told the name of every tool called with an
	// idempotency key in its request's _meta
	// ("dev.reelier/idempotency-key"), and the key.
	OnKey func(tool, key string)
	// Links makes create_item's result also name the item it created in
	// a resource_link content block (mcptest://items/<id>).
	Links bool
}

// The changes Options.Drift makes to the listed tools.
const (
	// DriftField gives create_item an optional input field, priority,
	// and add one, c.
	DriftField = "field"
	// DriftAnnotations lists get_item and add with readOnlyHint false.
	DriftAnnotations = "annotations"
	// DriftGone lists neither get_item nor add.
	DriftGone = "gone"
)

// AddInV2 is the input of add under DriftField.
type AddInV2 struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
	C float64 `json:"c,omitempty"`
}

// CreateInV2 is the input of create_item under DriftField.
type CreateInV2 struct {
	Title    string `json:"title"`
	Priority int    `json:"priority,omitempty"`
}

// IdempotencyMetaKey is the _meta key a replay sends a write step's
// idempotency key under (tool.IdempotencyMetaKey; this package imports
// none of the product).
const IdempotencyMetaKey = "dev.reelier/idempotency-key"

// Secret is a credential-shaped value the leak tool returns, assembled at
// run time so no credential literal sits in the source.
var Secret = "ghp_" + strings.Repeat("Zt7q", 9)

// EchoIn is the input of echo.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// AddIn is the input of add.
type AddIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// AddOut is the structured output of add.
type AddOut struct {
	Sum float64 `json:"sum"`
}

// ItemIn names an item.
type ItemIn struct {
	ID string `json:"id"`
}

// CreateIn is the input of create_item.
type CreateIn struct {
	Title string `json:"title"`
}

// SlowIn is the input of slow, which reports progress once when the call
// carries a progress token.
type SlowIn struct {
	MS int `json:"ms" jsonschema:"how long to take, in milliseconds"`
}

// Empty is the input of the tools that take none.
type Empty struct{}

type state struct {
	opts  Options
	mu    sync.Mutex
	next  int
	items map[string]string
}

func bptr(b bool) *bool { return &b }

// NewServer returns a test server with every tool, the resource, the
// template and the prompt.
func NewServer(opts Options) *mcp.Server {
	if opts.Name == "" {
		opts.Name = "mcptest"
	}
	if opts.Crash == nil {
		opts.Crash = func() { os.Exit(3) }
	}
	st := &state{opts: opts, items: map[string]string{}}
	s := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "A test server.",
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back, prefixed with the server's name."}, st.echo)
	add := &mcp.Tool{
		Name: "add", Title: "Add", Description: "Add two numbers.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: opts.Drift != DriftAnnotations, IdempotentHint: true, OpenWorldHint: bptr(false)},
	}
	switch opts.Drift {
	case DriftField:
		mcp.AddTool(s, add, func(ctx context.Context, req *mcp.CallToolRequest, in AddInV2) (*mcp.CallToolResult, AddOut, error) {
			return st.add(ctx, req, AddIn{A: in.A, B: in.B})
		})
	case DriftGone:
	default:
		mcp.AddTool(s, add, st.add)
	}
	create := &mcp.Tool{
		Name: "create_item", Description: "Create an item; every call returns a fresh id.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: bptr(false)},
	}
	if opts.Drift == DriftField {
		mcp.AddTool(s, create, func(ctx context.Context, req *mcp.CallToolRequest, in CreateInV2) (*mcp.CallToolResult, any, error) {
			return st.create(ctx, req, CreateIn{Title: in.Title})
		})
	} else {
		mcp.AddTool(s, create, st.create)
	}
	get := &mcp.Tool{
		Name: "get_item", Description: "Read an item by id.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: opts.Drift != DriftAnnotations},
	}
	if opts.Drift != DriftGone {
		mcp.AddTool(s, get, st.get)
	}
	mcp.AddTool(s, &mcp.Tool{
		Name: "delete_item", Description: "Delete an item by id.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: bptr(true)},
	}, st.delete)
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always return an error result."}, st.fail)
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Answer after ms milliseconds."}, st.slow)
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server process at once."}, st.crash)
	mcp.AddTool(s, &mcp.Tool{Name: "leak", Description: "Return a result that carries credentials."}, st.leak)
	s.AddResource(&mcp.Resource{URI: "mcptest://readme", Name: "readme", MIMEType: "text/plain"}, st.readme)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mcptest://items/{id}", Name: "item"}, st.itemResource)
	if opts.OnCall != nil || opts.OnKey != nil {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
					if opts.OnCall != nil {
						opts.OnCall(p.Name)
					}
					if key, ok := p.Meta[IdempotencyMetaKey].(string); ok && opts.OnKey != nil {
						opts.OnKey(p.Name, key)
					}
				}
				return next(ctx, method, req)
			}
		})
	}
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone.", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, st.greet)
	return s
}

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

func (st *state) echo(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: text(st.opts.Name + ": " + in.Text)}, nil, nil
}

func (st *state) add(_ context.Context, _ *mcp.CallToolRequest, in AddIn) (*mcp.CallToolResult, AddOut, error) {
	return nil, AddOut{Sum: in.A + in.B}, nil
}

func (st *state) create(_ context.Context, _ *mcp.CallToolRequest, in CreateIn) (*mcp.CallToolResult, any, error) {
	st.mu.Lock()
	st.next++
	id := fmt.Sprintf("item-%d", st.next)
	st.items[id] = in.Title
	st.mu.Unlock()
	res := &mcp.CallToolResult{Content: text(fmt.Sprintf(`{"id":%q,"title":%q}`, id, in.Title))}
	if st.opts.Links {
		res.Content = append(res.Content, &mcp.ResourceLink{URI: "mcptest://items/" + id, Name: id})
	}
	return res, nil, nil
}

func (st *state) get(_ context.Context, _ *mcp.CallToolRequest, in ItemIn) (*mcp.CallToolResult, any, error) {
	st.mu.Lock()
	title, ok := st.items[in.ID]
	st.mu.Unlock()
	if !ok {
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("no item %q", in.ID)), IsError: true}, nil, nil
	}
	return &mcp.CallToolResult{Content: text(fmt.Sprintf(`{"id":%q,"title":%q,"status":"open"}`, in.ID, title))}, nil, nil
}

func (st *state) delete(_ context.Context, _ *mcp.CallToolRequest, in ItemIn) (*mcp.CallToolResult, any, error) {
	st.mu.Lock()
	_, ok := st.items[in.ID]
	delete(st.items, in.ID)
	st.mu.Unlock()
	return &mcp.CallToolResult{Content: text(fmt.Sprintf(`{"deleted":%t}`, ok))}, nil, nil
}

func (st *state) fail(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: text("failed on purpose"), IsError: true}, nil, nil
}

func (st *state) slow(ctx context.Context, req *mcp.CallToolRequest, in SlowIn) (*mcp.CallToolResult, any, error) {
	if token := req.Params.GetProgressToken(); token != nil {
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 0, Total: 1, Message: "started"})
	}
	t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("slept %d ms", in.MS))}, nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

func (st *state) crash(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
	st.opts.Crash()
	return &mcp.CallToolResult{Content: text("crashed")}, nil, nil
}

func (st *state) leak(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: text(`{"token":"` + Secret + `","user":"ann"}`)}, nil, nil
}

func (st *state) readme(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me from " + st.opts.Name}}}, nil
}

func (st *state) itemResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id := strings.TrimPrefix(req.Params.URI, "mcptest://items/")
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: fmt.Sprintf(`{"id":%q}`, id)}}}, nil
}

func (st *state) greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "A greeting",
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["who"] + "!"}}},
	}, nil
}

// Main serves a test server on stdin and stdout until stdin closes. -name
// names the server, -say writes a line to stderr first, -drift changes
// the listed tools (Options.Drift) and -calls logs each tool called to a
// file. It returns the exit code.
func Main(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcptestserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "mcptest", "the server's `name`")
	var say []string
	fs.Func("say", "write `LINE` to stderr before serving (repeatable)", func(line string) error {
		say = append(say, line)
		return nil
	})
	drift := fs.String("drift", "", "change the listed tools: `KIND` field, annotations or gone")
	calls := fs.String("calls", "", "append the name of every tool called to `FILE`, one a line")
	keys := fs.String("keys", "", "append \"TOOL KEY\" to `FILE` for every call whose _meta carries an idempotency key")
	links := fs.Bool("links", false, "name the created item in a resource_link block of create_item's result")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for _, line := range say {
		fmt.Fprintln(stderr, line)
	}
	opts := Options{Name: *name, Drift: *drift, Links: *links}
	if *keys != "" {
		opts.OnKey = func(tool, key string) {
			f, err := os.OpenFile(*keys, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintln(stderr, "mcptestserver:", err)
				return
			}
			fmt.Fprintln(f, tool, key)
			f.Close()
		}
	}
	if *calls != "" {
		opts.OnCall = func(tool string) {
			f, err := os.OpenFile(*calls, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintln(stderr, "mcptestserver:", err)
				return
			}
			fmt.Fprintln(f, tool)
			f.Close()
		}
	}
	s := NewServer(opts)
	if err := s.Run(context.Background(), &mcp.IOTransport{Reader: stdin, Writer: stdout}); err != nil {
		fmt.Fprintln(stderr, "mcptestserver:", err)
		return 1
	}
	return 0
}

// ServeIfAsked serves a test server on stdio and exits when ServeEnv is
// set; otherwise it returns at once. Test binaries call it first thing in
// TestMain so that they can be wrapped as downstream servers.
//
// A process given -test.* flags is running tests even with ServeEnv set:
// a TestMain sets it for the servers its tests start, and `go test -fuzz`
// starts its fuzzing workers from the same binary, with the same
// environment and a -test.fuzzworker flag.
func ServeIfAsked() {
	if os.Getenv(ServeEnv) == "" {
		return
	}
	for _, arg := range os.Args[1:] {
		if strings.HasPrefix(arg, "-test.") {
			return
		}
	}
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
