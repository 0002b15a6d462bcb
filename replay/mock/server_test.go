package mock_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/replay/mock"
)

const shipTrace = "testdata/ship-open-orders-1.jsonl"

// rawClient speaks JSON-RPC lines to a server, so a test sees the exact
// JSON the server sends.
type rawClient struct {
	t   *testing.T
	w   io.Writer
	r   *bufio.Reader
	nid int
}

func (c *rawClient) call(method string, params any) map[string]json.RawMessage {
	c.t.Helper()
	c.nid++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nid, "method": method, "params": params})
	if _, err := c.w.Write(append(req, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(line, &msg); err != nil {
			c.t.Fatalf("%s: %v: %s", method, err, line)
		}
		if string(msg["id"]) == fmt.Sprint(c.nid) {
			if e, ok := msg["error"]; ok {
				c.t.Fatalf("%s: error %s", method, e)
			}
			var res map[string]json.RawMessage
			if err := json.Unmarshal(msg["result"], &res); err != nil {
				c.t.Fatalf("%s: %v", method, err)
			}
			return res
		}
	}
}

func (c *rawClient) notify(method string) {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	c.w.Write(append(req, '\n'))
}

// lockedBuffer collects what the server prints on stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stdioServer serves the traces on an in-process pipe and returns a raw
// client of it.
func stdioServer(t *testing.T, opts mock.Options, paths ...string) (*rawClient, *lockedBuffer) {
	t.Helper()
	book, err := mock.Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	opts.Stderr = stderr
	srv := mock.New(book, opts)
	cs, ss := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ctx, &mcp.IOTransport{Reader: ss, Writer: ss})
	}()
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	c := &rawClient{t: t, w: cs, r: bufio.NewReader(cs)}
	c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	c.notify("notifications/initialized")
	return c, stderr
}

// TestToolsListServesRecordedDefinitions: tools/list holds each recorded
// toolDef exactly as the trace has it (fields the SDK does not model,
// such as execution, included).
func TestToolsListServesRecordedDefinitions(t *testing.T) {
	c, stderr := stdioServer(t, mock.Options{}, shipTrace)
	res := c.call("tools/list", map[string]any{})
	var got []json.RawMessage
	if err := json.Unmarshal(res["tools"], &got); err != nil {
		t.Fatal(err)
	}
	book, _ := mock.Load([]string{shipTrace})
	if len(got) != 3 || len(book.Tools) != 3 {
		t.Fatalf("tools/list has %d tools, the book %d; want 3", len(got), len(book.Tools))
	}
	// The SDK lists tools by name.
	byName := map[string]json.RawMessage{}
	for _, raw := range got {
		var head struct{ Name string }
		json.Unmarshal(raw, &head)
		byName[head.Name] = raw
	}
	for _, tool := range book.Tools {
		if tool.Permissive {
			t.Errorf("%s is served with a permissive schema; the trace has its definition", tool.Name)
		}
		if !jsonEqual(byName[tool.Name], tool.Def) {
			t.Errorf("tools/list has %s\nwant the recorded definition %s", byName[tool.Name], tool.Def)
		}
	}
	if s := string(byName["search_orders"]); !strings.Contains(s, `"execution":{"taskSupport":"forbidden"}`) || !strings.Contains(s, `"additionalProperties":false`) {
		t.Errorf("the recorded definition lost fields: %s", s)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("stderr: %q, want nothing", s)
	}
}

// TestToolsListNamesOnly: a trace that predates toolDefs is served by name,
// with a permissive schema and the annotations the meta declared.
func TestToolsListNamesOnly(t *testing.T) {
	c, _ := stdioServer(t, mock.Options{}, filepath.Join("..", "..", "compile", "testdata", "traces", "16-annotation-ladder.jsonl"))
	res := c.call("tools/list", map[string]any{})
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations json.RawMessage `json:"annotations"`
	}
	if err := json.Unmarshal(res["tools"], &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 {
		t.Fatal("no tools")
	}
	annotated := 0
	for _, tool := range tools {
		if string(tool.InputSchema) != mock.PermissiveSchema {
			t.Errorf("%s: inputSchema %s, want %s", tool.Name, tool.InputSchema, mock.PermissiveSchema)
		}
		if tool.Annotations != nil {
			annotated++
		}
	}
	if annotated == 0 {
		t.Errorf("no tool carries the annotations the trace's toolAnnotations declare: %s", res["tools"])
	}
}

// TestToolsCall: the recorded results in recorded order, exact; a repeat
// says so; misses are error results that explain themselves.
func TestToolsCall(t *testing.T) {
	c, stderr := stdioServer(t, mock.Options{}, shipTrace)
	call := func(name string, args any) map[string]json.RawMessage {
		return c.call("tools/call", map[string]any{"name": name, "arguments": args})
	}
	text := func(res map[string]json.RawMessage) string {
		var content []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(res["content"], &content)
		if len(content) == 0 {
			return ""
		}
		return content[0].Text
	}
	search := map[string]any{"status": "open", "customer": "ann"}
	first := call("search_orders", search)
	if got := string(first["structuredContent"]); got != `{"orders":[{"id":"ord_7Q2","total":12.5}]}` {
		t.Errorf("first search: structuredContent %s", got)
	}
	if _, ok := first["isError"]; ok {
		t.Errorf("first search: isError %s", first["isError"])
	}
	second := call("search_orders", search)
	if got := string(second["structuredContent"]); got != `{"orders":[]}` {
		t.Errorf("second search: structuredContent %s, want the second recorded result", got)
	}
	if _, ok := second["_meta"]; ok {
		t.Errorf("second search is not a repeat: _meta %s", second["_meta"])
	}
	third := call("search_orders", search)
	if got := string(third["structuredContent"]); got != `{"orders":[]}` {
		t.Errorf("third search: structuredContent %s, want the last recorded result again", got)
	}
	if got := string(third["_meta"]); got != `{"reelier/mock":{"recorded":"testdata/ship-open-orders-1.jsonl:9","repeated":true}}` {
		t.Errorf("third search: _meta %s", got)
	}
	miss := call("ship_order", map[string]any{"id": "ord_9XX", "carrier": "dhl"})
	want := `reelier mock: no recorded call of ship_order matches these arguments (--match exact): {"carrier":"dhl","id":"ord_9XX"}; ` +
		`the nearest recorded call is testdata/ship-open-orders-1.jsonl:6 with {"id":"ord_7Q2","carrier":"dhl"}; what differs: args.id: recorded "ord_7Q2", got "ord_9XX"`
	if string(miss["isError"]) != "true" || text(miss) != want {
		t.Errorf("unmatched call: isError %s, text\n%s\nwant\n%s", miss["isError"], text(miss), want)
	}
	unknown := call("delete_everything", map[string]any{})
	if string(unknown["isError"]) != "true" || text(unknown) != `reelier mock: tool "delete_everything" was never recorded; the recordings have search_orders, ship_order and cancel_order` {
		t.Errorf("unknown tool: isError %s, text %q", unknown["isError"], text(unknown))
	}
	never := call("cancel_order", map[string]any{"id": "ord_7Q2"})
	if string(never["isError"]) != "true" || !strings.Contains(text(never), `tool "cancel_order" is listed in testdata/ship-open-orders-1.jsonl but was never called there`) {
		t.Errorf("a tool listed but never called: isError %s, text %q", never["isError"], text(never))
	}
	for _, want := range []string{
		"reelier mock: search_orders: every recorded call that matches was answered already in this session; answering with the last one (testdata/ship-open-orders-1.jsonl:9) again\n",
		"reelier mock: no recorded call of ship_order matches",
		`reelier mock: tool "delete_everything" was never recorded`,
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestToolsCallOddBodies: what the mock answers for recorded results
// that are not plain tool results.
func TestToolsCallOddBodies(t *testing.T) {
	dir := filepath.Join("..", "..", "compile", "testdata", "traces")
	tests := []struct {
		trace, tool string
		args        any
		want        string // the result's exact JSON
	}{
		{"27-non-json-results.jsonl", "get_bare", map[string]any{}, `{"content":[{"type":"text","text":"{\"id\":\"bare_0001\"}"}]}`},
		{"14-sf-profile.jsonl", "list_contacts", map[string]any{"limit": 500},
			`{"content":[{"type":"text","text":"{\"contacts\": [{\"id\": \"ct_0000\"}, {\"id\": \"ct_0001\"}, {\"id\": \"ct_0002\"}, {\"id\": \"ct_0003\"}, {\"id\": \"ct_0004\"}, {\"id\": \"ct_0005\"}, {\"id\": \"ct_0006\"}, {\"id\": \"ct_0007\"}, {\"id\": \"ct_0008\"}, {\"id\": \"ct_0009\"}]}`},
		{"11-failed-result.jsonl", "create_refund", map[string]any{"charge": "ch_555001", "amount": 2500},
			`{"content":[{"type":"text","text":"{\"error\":\"charge ch_555001 already refunded\",\"refund\":{\"id\":\"re_9000\"}}"}],"isError":true}`},
		{"40-odd-results.jsonl", "get_image", map[string]any{"name": "logo"}, `{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}`},
		{"13-missing-result.jsonl", "download_file", map[string]any{"path": "q2-summary.pdf"},
			`{"content":[{"type":"text","text":"reelier mock: the recorded call of download_file at ../../compile/testdata/traces/13-missing-result.jsonl:6 has no result (the recording stopped before the tool answered), so there is nothing to answer with"}],"isError":true}`},
		{"26-non-object-args.jsonl", "sum_numbers", []int{1000, 2000}, `{"content":[{"type":"text","text":"{\"sum\":3000}"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.trace, func(t *testing.T) {
			c, _ := stdioServer(t, mock.Options{}, filepath.Join(dir, tt.trace))
			res := c.call("tools/call", map[string]any{"name": tt.tool, "arguments": tt.args})
			got, _ := json.Marshal(res)
			if tt.trace == "14-sf-profile.jsonl" {
				// The preview is cut where the recorder cut it.
				var r struct {
					Content []struct{ Text string } `json:"content"`
				}
				json.Unmarshal(got, &r)
				if len(r.Content) != 1 || !strings.HasPrefix(r.Content[0].Text, `{"contacts": [{"id": "ct_0000"}`) {
					t.Errorf("truncated body: %s", got)
				}
				return
			}
			if !jsonEqual(got, []byte(tt.want)) {
				t.Errorf("result %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestHTTP: a go-sdk client over streamable HTTP on loopback lists the
// recorded tools and replays the recording; each session starts from the
// first recorded call; with a token, a request without it is refused.
func TestHTTP(t *testing.T) {
	book, err := mock.Load([]string{shipTrace})
	if err != nil {
		t.Fatal(err)
	}
	const token = "a-token-of-sixteen-or-more"
	srv := mock.New(book, mock.Options{Match: mock.Loose})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln, token) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	})
	endpoint := "http://" + ln.Addr().String() + "/mcp"

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token: %s, want 401", resp.Status)
	}

	connect := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport(token)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := connect(), connect()
	list, err := a.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if d := cmp.Diff([]string{"cancel_order", "search_orders", "ship_order"}, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if ann := list.Tools[1].Annotations; ann == nil || !ann.ReadOnlyHint {
		t.Errorf("search_orders annotations %+v, want readOnlyHint", ann)
	}
	search := func(cs *mcp.ClientSession, customer string) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_orders", Arguments: map[string]any{"customer": customer, "status": "open"}})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(res.StructuredContent)
		return string(out)
	}
	// Loose: another customer has the recorded shape.
	got := []string{search(a, "bob"), search(b, "ann"), search(a, "ann"), search(b, "ann")}
	want := []string{`{"orders":[{"id":"ord_7Q2","total":12.5}]}`, `{"orders":[{"id":"ord_7Q2","total":12.5}]}`, `{"orders":[]}`, `{"orders":[]}`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("two sessions, each from the first recorded call (-want +got):\n%s", d)
	}
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "ship_order", Arguments: map[string]any{"id": 7}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `what differs: args.id: recorded "ord_7Q2", got 7 (string → number); args.carrier: missing (recorded "dhl")`) {
		t.Errorf("loose miss: %+v", res.Content[0])
	}
}

// bearerTransport adds the token to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

// TestDefinitionTheSDKRefuses: a recorded definition the SDK will not
// serve (an x-mcp-header on an object) is served with the permissive
// schema and a warning, never a panic.
func TestDefinitionTheSDKRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hdr-1.jsonl")
	trace := meta + `,"servers":[{"name":"s","command":"srv","tools":["put"],"toolDefs":[` +
		`{"name":"put","description":"Put it.","inputSchema":{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}},"annotations":{"idempotentHint":true}}]}]}` + "\n" +
		`{"t":"call","seq":1,"i":0,"ts":"s","tool":"put","args":{"o":{}}}` + "\n" +
		`{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"ok"}]}}` + "\n"
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	c, stderr := stdioServer(t, mock.Options{}, path)
	if !strings.Contains(stderr.String(), `reelier mock: tool "put": the MCP SDK refuses its recorded definition (AddTool "put": invalid parameter header annotations`) {
		t.Errorf("stderr: %s", stderr.String())
	}
	res := c.call("tools/list", map[string]any{})
	if got := string(res["tools"]); got != `[{"annotations":{"idempotentHint":true},"description":"Put it.","inputSchema":{"type":"object"},"name":"put"}]` {
		t.Errorf("tools/list: %s", got)
	}
	call := c.call("tools/call", map[string]any{"name": "put", "arguments": map[string]any{"o": map[string]any{}}})
	if string(call["content"]) != `[{"type":"text","text":"ok"}]` {
		t.Errorf("tools/call: %s", call["content"])
	}
}

// TestMissIsRedacted: a call is compared and shown as a recording would
// keep it — a secret it sends never reaches the answer or stderr.
func TestMissIsRedacted(t *testing.T) {
	c, stderr := stdioServer(t, mock.Options{}, shipTrace)
	const secret = "ghp_0123456789abcdefABCDEF0123456789abcd"
	res := c.call("tools/call", map[string]any{"name": "ship_order", "arguments": map[string]any{"id": "ord_7Q2", "carrier": "dhl", "api_key": "plain-looking-value", "note": "token " + secret}})
	out, _ := json.Marshal(res)
	for _, leak := range []string{secret, "plain-looking-value"} {
		if strings.Contains(string(out), leak) || strings.Contains(stderr.String(), leak) {
			t.Errorf("%q leaked:\n%s\n%s", leak, out, stderr.String())
		}
	}
	if !strings.Contains(string(out), `args.api_key: not in the recorded call (got \"«redacted»\")`) {
		t.Errorf("the miss does not name the redacted argument: %s", out)
	}
}
