package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/grammar"
)

// Options configure a Server.
type Options struct {
	// Dir is the working directory: every path a caller passes is resolved
	// against it and refused outside it. "" is the process's directory.
	Dir string
	// HistoryDir is the agent history reelier_scan looks through by
	// default; transcripts may be read from it too (never written). ""
	// means no history directory; one that does not exist is ignored.
	HistoryDir string
	// Getenv reads REELIER_CLOUD_URL and REELIER_CLOUD_KEY for
	// reelier_push; nil means os.Getenv.
	Getenv func(string) string
	// AllowWrap lets reelier_replay start the MCP servers its wrap
	// argument names. Starting a process is as much as a shell, so it
	// belongs on stdio, where the caller started this server anyway, and
	// not on an HTTP listener.
	AllowWrap bool
	// HTTPClient sends the requests of replayed http.get and http.post
	// steps and of reelier_push; nil means each one's default client.
	HTTPClient *http.Client
	// Stderr receives wrapped servers' standard error and warnings; nil
	// discards them.
	Stderr io.Writer
	// Version is the version the server reports.
	Version string
	// Clock is the replay clock ({{today}}, startedAt); nil means time.Now.
	Clock func() time.Time
}

// Server is Reelier's tool server. It is safe for concurrent use: one
// Server answers every session of an HTTP listener.
type Server struct {
	opts    Options
	work    *area
	history *area
	mcp     *mcp.Server
	tools   []string
	// usage says, per tool, which arguments it takes.
	usage map[string]string
	// inputs is, per tool, the input schema it advertises.
	inputs map[string]*jsonschema.Schema
	// skillsPage is the page size of skills/list; 0 means the default.
	skillsPage int
	// warnMu keeps warnings on Stderr whole lines.
	warnMu sync.Mutex
}

// instructions is what the server tells clients it is for.
const instructions = `Reelier turns tool-call workflows into checked, replayable skills (*.skill.md) and replays them with no LLM.
Before redoing a repeatable API or MCP task, call reelier_find_skill with a description of the task: a skill may already do it, and reelier_replay runs it at Level 0 and returns an honest run record ("unchecked" steps ran but verified nothing).
After finishing such a task in a session, reelier_scan and reelier_from_session turn the session into a skill; reelier_lint checks a skill file; reelier_push sends run records to a receipt ledger when REELIER_CLOUD_URL and REELIER_CLOUD_KEY are set.
Paths are relative to the server's working directory and must stay inside it.`

// New opens the working directory (and the history directory, when it
// exists) and builds the server with every tool.
func New(opts Options) (*Server, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	work, err := openArea("the working directory", opts.Dir)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, work: work, usage: map[string]string{}, inputs: map[string]*jsonschema.Schema{}}
	if opts.HistoryDir != "" {
		if h, err := openArea("the history directory", opts.HistoryDir); err == nil {
			s.history = h
		}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "reelier", Title: "Reelier", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: serverCapabilities()})
	s.addTools()
	if err := s.addSkillsExtension(); err != nil {
		s.Close()
		return nil, err
	}
	s.mcp.AddReceivingMiddleware(s.explainCalls, refuseUndeclared)
	return s, nil
}

// Close releases the directories the server holds open.
func (s *Server) Close() error {
	err := s.work.close()
	if s.history != nil {
		err = errors.Join(err, s.history.close())
	}
	return err
}

// Serve answers one client on t until it disconnects or ctx ends. No
// error leaves it without a JSON-RPC error code (codedErrors).
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, codedErrors{t})
}

// Tools returns the names of the server's tools, sorted.
func (s *Server) Tools() []string { return slices.Clone(s.tools) }

// Dir returns the working directory, symbolic links resolved.
func (s *Server) Dir() string { return s.work.dir }

// addTools registers every tool.
func (s *Server) addTools() {
	addTool(s, toolScan, s.scan)
	addTool(s, toolFromSession, s.fromSession)
	if s.opts.AllowWrap {
		addTool(s, toolReplay, s.replay)
	} else {
		// wrap is refused without AllowWrap (over HTTP), so it is not
		// offered there either.
		addTool(s, toolReplay, s.replay, "wrap")
	}
	addTool(s, toolPush, s.push)
	addTool(s, toolLint, s.lint)
	addTool(s, toolFindSkill, s.findSkill)
	slices.Sort(s.tools)
}

// addTool registers a typed tool. The SDK turns a returned error, and
// arguments that do not match the input schema, into an isError result;
// this wrapper does the same for a panic in the code a tool calls, so one
// bad call never takes the server down with it. The arguments named in
// hide are left out of the input schema and the usage text: the tool
// refuses them on this server.
func addTool[In, Out any](s *Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], hide ...string) {
	t := *tool
	s.tools = append(s.tools, t.Name)
	s.usage[t.Name] = usage[In](t.Name, hide...)
	if t.InputSchema == nil {
		// What the SDK would derive, less the hidden arguments.
		schema, err := jsonschema.For[In](&jsonschema.ForOptions{})
		if err != nil {
			panic(fmt.Sprintf("%s: input schema: %v", t.Name, err))
		}
		for _, name := range hide {
			delete(schema.Properties, name)
			schema.Required = slices.DeleteFunc(schema.Required, func(r string) bool { return r == name })
			if i := slices.Index(schema.PropertyOrder, name); i >= 0 {
				schema.PropertyOrder = slices.Delete(schema.PropertyOrder, i, i+1)
			}
		}
		t.InputSchema = schema
	}
	if schema, ok := t.InputSchema.(*jsonschema.Schema); ok {
		s.inputs[t.Name] = schema
	}
	if t.OutputSchema == nil {
		// Raw JSON in a result (a run record's filled arguments and bind
		// values) is any JSON value, not the byte array its Go type is.
		schema, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.RawMessage](): {},
		}})
		if err != nil {
			panic(fmt.Sprintf("%s: output schema: %v", t.Name, err))
		}
		t.OutputSchema = schema
	}
	mcp.AddTool(s.mcp, &t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, fmt.Errorf("%s failed with an internal error (%v); this is a bug in Reelier, please report it", t.Name, v)
			}
		}()
		return h(ctx, req, in)
	})
}

// explainCalls makes the answers to bad calls useful to an agent. A call
// of a tool the server does not have gets an isError result naming the
// tools it has (the SDK's own answer is a protocol error, which some
// clients show as a crash). A null for an optional argument means the
// argument is absent, as most JSON producers spell it; a null for a
// required one gets an isError result naming the argument. wrap, where
// it is not offered, is refused with the reason. A call whose arguments
// do not match the tool's schema keeps the SDK's isError result, with the
// tool's arguments spelled out after it.
func (s *Server) explainCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		if !slices.Contains(s.tools, name) {
			msg := fmt.Sprintf("unknown tool %q: reelier serve has %s.", name, strings.Join(s.tools, ", "))
			if near, ok := grammar.Suggest(name, s.tools); ok {
				msg += fmt.Sprintf(" Did you mean %q?", near)
			}
			return errorResult(msg), nil
		}
		args, err := s.dropNulls(name, call.Params.Arguments)
		if err != nil {
			return errorResult(err.Error() + ". " + s.usage[name]), nil
		}
		call.Params.Arguments = args
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError && len(r.Content) == 1 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok && strings.HasPrefix(tc.Text, `validating "arguments"`) {
				// The validator names a JSON null by the Go value it
				// decodes to, an invalid reflect.Value.
				tc.Text = strings.ReplaceAll(tc.Text, "<invalid reflect.Value>", "null") + ". " + s.usage[name]
			}
		}
		return res, err
	}
}

// dropNulls removes from a call's arguments every top-level null whose
// argument is optional in the tool's input schema. A null for a required
// argument is an error naming it; so is a non-null wrap where the server
// does not offer wrap. Arguments that are not an object, and nulls for
// arguments the schema does not know, are left for the schema's
// validation to refuse.
func (s *Server) dropNulls(tool string, raw json.RawMessage) (json.RawMessage, error) {
	var args map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &args) != nil || args == nil {
		return raw, nil
	}
	if w, ok := args["wrap"]; ok && tool == toolReplay.Name && !s.opts.AllowWrap && string(w) != "null" {
		return nil, errWrapOverHTTP
	}
	schema := s.inputs[tool]
	changed := false
	for name, v := range args {
		if string(bytes.TrimSpace(v)) != "null" {
			continue
		}
		if slices.Contains(schema.Required, name) {
			want := "a value"
			if p := schema.Properties[name]; p != nil && p.Type != "" {
				want = "a " + p.Type
			}
			return nil, fmt.Errorf("%s: argument %q is required and cannot be null; give %s", tool, name, want)
		}
		_, known := schema.Properties[name]
		if known || (name == "wrap" && tool == toolReplay.Name) {
			delete(args, name)
			changed = true
		}
	}
	if !changed {
		return raw, nil
	}
	return json.Marshal(args)
}

// usage describes the arguments of a tool whose input is In, in field
// order: "reelier_lint takes: path (string, required)."
func usage[In any](tool string, hide ...string) string {
	t := reflect.TypeFor[In]()
	var args []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if slices.Contains(hide, name) {
			continue
		}
		arg := name + " (" + jsonType(f.Type)
		if !strings.Contains(opts, "omitempty") {
			arg += ", required"
		}
		args = append(args, arg+")")
	}
	return tool + " takes: " + strings.Join(args, ", ") + "."
}

// jsonType names the JSON type of a Go argument type.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int:
		return "integer"
	case reflect.Map:
		return "object of " + jsonType(t.Elem()) + "s"
	case reflect.Slice:
		return "array of " + jsonType(t.Elem()) + "s"
	}
	return t.Kind().String()
}

// base returns the directory a call's relative paths are resolved
// against: cwd when given (it must be a directory inside the working
// directory), else the working directory.
func (s *Server) base(cwd string) (string, error) {
	if cwd == "" {
		return s.work.dir, nil
	}
	dir, _, err := within("cwd", s.work.dir, cwd, s.work)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("cwd %q: %w", cwd, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("cwd %q is not a directory", cwd)
	}
	return dir, nil
}

// display is how a path inside the working directory is shown to the
// caller: relative to it.
func (s *Server) display(p string) string {
	if rel, ok := s.work.contains(p); ok {
		return filepath.ToSlash(rel)
	}
	return p
}

// readIn reads a file at a resolved path inside one of the areas, with a
// message that names the argument it came from.
func readIn(a *area, arg, given, p string) ([]byte, error) {
	src, err := a.readFile(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s %q: no such file", arg, given)
	case err != nil:
		return nil, fmt.Errorf("%s %q: %w", arg, given, err)
	}
	return src, nil
}

// errorResult is an isError result with the given text, for a tool whose
// failure has a normative shape of its own (reelier_push).
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
