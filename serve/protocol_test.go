package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests pin the four findings of the MCP conformance run against
// `reelier serve --http` (issue 21): a request without a session, null
// arguments, wrap over HTTP, and capabilities against the methods
// answered.

// rpcReply is a JSON-RPC response as it came over the wire.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rawPost sends one JSON-RPC message to endpoint, in session sid when it
// is not "", and returns the HTTP status, the response headers and the
// JSON-RPC reply (nil when the body holds none: a 202, or a plain-text
// error).
func rawPost(t *testing.T, endpoint, sid, body string) (int, http.Header, *rpcReply) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var data []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && d != "" {
				data = []byte(d)
				break
			}
		}
	} else if data, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	var reply rpcReply
	if json.Unmarshal(data, &reply) != nil || (reply.Result == nil && reply.Error == nil) {
		return resp.StatusCode, resp.Header, nil
	}
	return resp.StatusCode, resp.Header, &reply
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rawSession initializes a session by hand and returns its id and the
// capabilities the server declared.
func rawSession(t *testing.T, endpoint string) (string, *mcp.ServerCapabilities) {
	t.Helper()
	status, header, reply := rawPost(t, endpoint, "", initializeBody)
	if status != http.StatusOK || reply == nil || reply.Error != nil {
		t.Fatalf("initialize: status %d, reply %+v", status, reply)
	}
	var res mcp.InitializeResult
	if err := json.Unmarshal(reply.Result, &res); err != nil {
		t.Fatal(err)
	}
	sid := header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize: no session id")
	}
	if status, _, _ := rawPost(t, endpoint, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", status)
	}
	return sid, res.Capabilities
}

// TestSessionlessRequest: a request other than initialize (or ping)
// without a session gets HTTP 400 and a JSON-RPC Invalid Request error
// (-32600) that says what to do, not the SDK's error code 0; what may
// come without a session still goes through.
func TestSessionlessRequest(t *testing.T) {
	endpoint := serveHTTP(t, "")
	tests := []struct {
		name     string
		body     string
		refused  bool
		wantID   string
		wantCode int
	}{
		{"tools/list", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true, "7", -32600},
		{"tools/call with a string id", `{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"reelier_lint","arguments":{"path":"x"}}}`, true, `"a-1"`, -32600},
		{"resources/read", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://x/SKILL.md"}}`, true, "3", -32600},
		{"initialize", initializeBody, false, "1", 0},
		{"ping", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, false, "2", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, reply := rawPost(t, endpoint, "", tt.body)
			if !tt.refused {
				if status != http.StatusOK || reply == nil || reply.Error != nil || string(reply.ID) != tt.wantID {
					t.Errorf("status %d, reply %+v: want a result", status, reply)
				}
				return
			}
			if status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", status)
			}
			if reply == nil || reply.Error == nil {
				t.Fatalf("no JSON-RPC error in the reply")
			}
			if reply.Error.Code != tt.wantCode || string(reply.ID) != tt.wantID {
				t.Errorf("error code %d id %s, want %d and %s", reply.Error.Code, reply.ID, tt.wantCode, tt.wantID)
			}
			for _, want := range []string{"Mcp-Session-Id", "initialize"} {
				if !strings.Contains(reply.Error.Message, want) {
					t.Errorf("message %q does not mention %s", reply.Error.Message, want)
				}
			}
		})
	}
	// A session-less request of the 2026-07-28 revision is the SDK's to
	// answer: it names its protocol in _meta and needs no session.
	status, _, reply := rawPost(t, endpoint, "", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"`+mcp.MetaKeyProtocolVersion+`":"2026-07-28","`+mcp.MetaKeyClientCapabilities+`":{}}}}`)
	if reply != nil && reply.Error != nil && strings.Contains(reply.Error.Message, "needs a session") {
		t.Errorf("a 2026-07-28 request was refused for want of a session: status %d, %+v", status, reply.Error)
	}
	// With a session, the same request is answered.
	sid, _ := rawSession(t, endpoint)
	if status, _, reply := rawPost(t, endpoint, sid, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`); status != http.StatusOK || reply == nil || reply.Error != nil {
		t.Errorf("tools/list in a session: status %d, reply %+v", status, reply)
	}
}

// TestNullArguments: a null for an optional argument is the argument
// left out; a null for a required one is an isError result naming it; a
// null deeper in an argument is refused by the schema with a message that
// says null (not the validator's "<invalid reflect.Value>").
func TestNullArguments(t *testing.T) {
	dir := workDir(t)
	cs := connect(t, Options{Dir: dir, AllowWrap: true})
	tests := []struct {
		name, tool, args string
		ok               bool
		want             []string
	}{
		{"optional string and integer", "reelier_find_skill", `{"task": "read this week's bookings", "dir": null, "limit": null}`, true, nil},
		{"required string", "reelier_find_skill", `{"task": null}`, false, []string{`argument "task" is required and cannot be null`, "give a string", "reelier_find_skill takes:"}},
		{"required, another tool", "reelier_lint", `{"path": null}`, false, []string{`argument "path" is required`}},
		{"optional object and array", "reelier_replay", `{"skillPath": "nope.skill.md", "vars": null, "wrap": null, "cwd": null}`, false, []string{`skillPath "nope.skill.md": no such file`}},
		{"optional booleans", "reelier_push", `{"skillPath": "skills/bookings.skill.md", "dryRun": true, "all": null, "withSkill": null, "cwd": null}`, false, []string{"no run history"}},
		{"null inside an argument", "reelier_replay", `{"skillPath": "x.skill.md", "vars": {"a": null}}`, false, []string{`validating /properties/vars`, `null has type "null"`}},
		{"null for an unknown argument", "reelier_lint", `{"path": "x", "verbose": null}`, false, []string{"verbose", "reelier_lint takes:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			msg := text(t, res)
			if strings.Contains(msg, "reflect.Value") {
				t.Errorf("the validator's Go value leaked: %s", msg)
			}
			if tt.ok {
				if res.IsError {
					t.Errorf("want success, got %s", msg)
				}
				return
			}
			wantError(t, res, tt.want...)
		})
	}
}

// replaySchema returns reelier_replay's input schema as a client sees it.
func replaySchema(t *testing.T, cs *mcp.ClientSession) (*jsonschema.Schema, string) {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "reelier_replay" {
			data, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			return &s, string(data)
		}
	}
	t.Fatal("no reelier_replay tool")
	return nil, ""
}

// TestWrapAdvertised: reelier_replay offers wrap where it is allowed
// (stdio) and neither offers nor takes it where it is not (HTTP), in the
// schema and in the usage text of an error.
func TestWrapAdvertised(t *testing.T) {
	stdio := connect(t, Options{Dir: t.TempDir(), AllowWrap: true})
	schema, raw := replaySchema(t, stdio)
	if _, ok := schema.Properties["wrap"]; !ok {
		t.Errorf("stdio: wrap is not in reelier_replay's schema: %s", raw)
	}
	wantError(t, call(t, stdio, "reelier_replay", `{"skillPath": 3}`), "wrap (array of strings)")

	httpCS, err := httpClient(t, serveHTTP(t, ""), "")
	if err != nil {
		t.Fatal(err)
	}
	schema, raw = replaySchema(t, httpCS)
	if _, ok := schema.Properties["wrap"]; ok || strings.Contains(raw, "wrap") {
		t.Errorf("HTTP: wrap is advertised: %s", raw)
	}
	for _, want := range []string{"skillPath", "vars", "allowWrites", "allowDestructive", "cwd"} {
		if _, ok := schema.Properties[want]; !ok {
			t.Errorf("HTTP: %s is missing from the schema: %s", want, raw)
		}
	}
	msg := wantError(t, call(t, httpCS, "reelier_replay", `{"skillPath": "x.skill.md", "wrap": ["sh -c id"]}`), "only available when reelier serve runs on stdio")
	if strings.Contains(msg, "wrap (array") {
		t.Errorf("HTTP: the usage text offers wrap: %s", msg)
	}
	msg = wantError(t, call(t, httpCS, "reelier_replay", `{"skillPath": 3}`), "reelier_replay takes:")
	if strings.Contains(msg, "wrap") {
		t.Errorf("HTTP: the usage text offers wrap: %s", msg)
	}
}

// TestCapabilitiesMatchMethods: every method of a server feature is
// answered exactly when the capabilities sent in the initialize result
// declare its feature; the others get "Method not found" (-32601).
func TestCapabilitiesMatchMethods(t *testing.T) {
	endpoint := serveHTTP(t, "")
	sid, caps := rawSession(t, endpoint)
	if caps == nil || caps.Tools == nil || caps.Resources == nil || caps.Logging == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	if caps.Prompts != nil || caps.Completions != nil || caps.Resources.Subscribe {
		t.Errorf("declares what it does not serve: %+v", caps)
	}
	params := map[string]string{
		"tools/list":               `{}`,
		"tools/call":               `{"name":"reelier_lint","arguments":{"path":"none.skill.md"}}`,
		"resources/list":           `{}`,
		"resources/read":           `{"uri":"skill://none/SKILL.md"}`,
		"resources/templates/list": `{}`,
		"resources/subscribe":      `{"uri":"skill://none/SKILL.md"}`,
		"resources/unsubscribe":    `{"uri":"skill://none/SKILL.md"}`,
		"prompts/list":             `{}`,
		"prompts/get":              `{"name":"none"}`,
		"completion/complete":      `{"ref":{"type":"ref/resource","uri":"skill://{+path}"},"argument":{"name":"path","value":"s"}}`,
		"logging/setLevel":         `{"level":"info"}`,
	}
	methods := make([]string, 0, len(declaredBy))
	for m := range declaredBy {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	for i, method := range methods {
		t.Run(method, func(t *testing.T) {
			p, ok := params[method]
			if !ok {
				t.Fatalf("no params for %s in this test", method)
			}
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 10, "method": method, "params": json.RawMessage(p)})
			_, _, reply := rawPost(t, endpoint, sid, string(body))
			if reply == nil {
				t.Fatal("no reply")
			}
			notFound := reply.Error != nil && reply.Error.Code == -32601
			if declared := declaredBy[method](caps); declared == notFound {
				t.Errorf("declared %t, but the answer is %+v %s", declared, reply.Error, reply.Result)
			}
		})
	}
}

// TestPreInitializeStdio: on stdio (any transport given to Serve), a
// request before initialize is refused with Invalid Request (-32600)
// and a message that says to initialize, not with error code 0.
func TestPreInitializeStdio(t *testing.T) {
	srv, err := New(Options{Dir: t.TempDir(), AllowWrap: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, st) }()
	defer func() { cancel(); <-done }()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id, err := jsonrpc.MakeID(float64(4))
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "tools/list", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		t.Fatalf("want an error response, got %#v", msg)
	}
	var werr *jsonrpc.Error
	if !errors.As(resp.Error, &werr) || werr.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(werr.Message, "send initialize first") {
		t.Errorf("error %#v, want code %d saying to initialize first", resp.Error, jsonrpc.CodeInvalidRequest)
	}
}
