package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// TestToolsPassThrough lists the proxy's tools and a test server's own and
// checks each downstream tool is exposed 1:1, plus the control tools.
func TestToolsPassThrough(t *testing.T) {
	f := start(t, "a")
	got, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	direct := directTools(t)
	byName := map[string]*mcp.Tool{}
	for _, tool := range got.Tools {
		byName[tool.Name] = tool
	}
	for _, want := range direct {
		if diff := cmp.Diff(want, byName[want.Name]); diff != "" {
			t.Errorf("tool %s differs (-direct +proxy):\n%s", want.Name, diff)
		}
	}
	for _, name := range []string{"reelier_start_recording", "reelier_note", "reelier_stop_recording"} {
		if byName[name] == nil {
			t.Errorf("control tool %s missing", name)
		}
	}
	if len(got.Tools) != len(direct)+3 {
		t.Errorf("%d tools; want %d", len(got.Tools), len(direct)+3)
	}
	if a := byName["create_item"].Annotations; a == nil || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("create_item annotations %+v; want destructiveHint false kept", a)
	}
	if byName["add"].OutputSchema == nil {
		t.Error("add lost its output schema")
	}
}

// directTools lists a test server's tools without the proxy.
func directTools(t *testing.T) []*mcp.Tool {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	s := mcptest.NewServer(mcptest.Options{Name: "a"})
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestResourcesAndPromptsPassThrough reads the downstream's resource,
// templated resource and prompt through the proxy.
func TestResourcesAndPromptsPassThrough(t *testing.T) {
	f := start(t, "a")
	ctx := context.Background()
	res, err := f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcptest://readme"})
	if err != nil || res.Contents[0].Text != "read me from a" {
		t.Errorf("readme: %+v, %v", res, err)
	}
	res, err = f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcptest://items/42"})
	if err != nil || res.Contents[0].Text != `{"id":"42"}` {
		t.Errorf("templated resource: %+v, %v", res, err)
	}
	tmpl, err := f.session.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "mcptest://items/{id}" {
		t.Errorf("templates: %+v, %v", tmpl, err)
	}
	pr, err := f.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ann"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ann!" {
		t.Errorf("prompt: %+v, %v", pr, err)
	}
}

// TestRecordSession records notes and calls (one failing, one carrying a
// credential), checks what the agent got, and checks the trace record by
// record against a golden file.
func TestRecordSession(t *testing.T) {
	f := start(t, "a")
	if text, _ := f.call(t, "echo", map[string]any{"text": "before"}); text != "a: before" {
		t.Fatalf("unrecorded call: %q", text)
	}
	path := f.startRecording(t, "session")
	steps := []struct {
		tool string
		args any
		want string
		err  bool
	}{
		{"reelier_note", map[string]any{"text": "create an item"}, "Noted.", false},
		{"create_item", map[string]any{"title": "first"}, `{"id":"item-1","title":"first"}`, false},
		{"reelier_note", map[string]any{"text": "read it back"}, "Noted.", false},
		{"get_item", map[string]any{"id": "item-1"}, `{"id":"item-1","title":"first","status":"open"}`, false},
		{"add", map[string]any{"a": 2, "b": 3}, `{"sum":5}`, false},
		{"fail", map[string]any{}, "failed on purpose", true},
		{"leak", nil, `{"token":"` + mcptest.Secret + `","user":"ann"}`, false},
	}
	for _, s := range steps {
		text, isErr := f.call(t, s.tool, s.args)
		if text != s.want || isErr != s.err {
			t.Errorf("%s: got %q (isError %v), want %q (isError %v)", s.tool, text, isErr, s.want, s.err)
		}
	}
	text, isErr := f.call(t, "reelier_stop_recording", map[string]any{})
	if want := fmt.Sprintf("Stopped recording. The trace %s holds 5 calls.", path); text != want || isErr {
		t.Errorf("stop: %q, want %q", text, want)
	}
	f.call(t, "echo", map[string]any{"text": "after"})
	got := normalized(t, path)
	if strings.Contains(got, mcptest.Secret) {
		t.Error("the credential reached the trace")
	}
	got = strings.ReplaceAll(got, os.Args[0], "TESTBIN")
	testutil.Golden(t).Assert(t, t.Name(), []byte(got))
	if _, err := trace.Load(path); err != nil {
		t.Errorf("trace does not load: %v", err)
	}
}

// TestControlTools checks every control tool answer, in order.
func TestControlTools(t *testing.T) {
	f := start(t, "a")
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	trace1 := filepath.Join(f.dir, "s-1.jsonl")
	steps := []struct {
		tool string
		args any
		want string
		err  bool
	}{
		{"reelier_note", map[string]any{"text": "x"}, "Not recording, so the note was not kept. Call reelier_start_recording to start a trace.", false},
		{"reelier_stop_recording", map[string]any{}, "Not recording, so there is nothing to stop. Call reelier_start_recording to start a trace.", false},
		{"reelier_start_recording", map[string]any{}, `reelier_start_recording needs the argument "name", a string.`, true},
		{"reelier_start_recording", map[string]any{"name": 7}, `reelier_start_recording needs the argument "name", a string.`, true},
		{"reelier_start_recording", map[string]any{"name": "a/b"}, `Could not start recording: the trace name "a/b" must not contain a slash, a backslash or NUL`, true},
		{"reelier_start_recording", map[string]any{"name": ""}, "Could not start recording: the trace name is empty", true},
		{"reelier_note", map[string]any{"text": nil}, `reelier_note needs the argument "text", a string.`, true},
		{"reelier_note", map[string]any{}, `reelier_note needs the argument "text", a string.`, true},
		{"reelier_start_recording", map[string]any{"name": "s"}, "Recording to " + trace1 + ". Call reelier_note before each step to say what it is for, and reelier_stop_recording when you are done.", false},
		{"reelier_start_recording", map[string]any{"name": "other"}, "Already recording to " + trace1 + ". Call reelier_stop_recording first: recordings never nest, and this one was left untouched.", false},
		{"reelier_note", map[string]any{"text": "fine"}, "Noted.", false},
		{"echo", map[string]any{"text": "one"}, "a: one", false},
		{"reelier_stop_recording", nil, "Stopped recording. The trace " + trace1 + " holds 1 call.", false},
		{"reelier_start_recording", map[string]any{"name": "s"}, "Recording to " + filepath.Join(f.dir, "s-2.jsonl") + ". Call reelier_note before each step to say what it is for, and reelier_stop_recording when you are done.", false},
		{"reelier_stop_recording", map[string]any{}, "Stopped recording. The trace " + filepath.Join(f.dir, "s-2.jsonl") + " holds 0 calls.", false},
	}
	for k, s := range steps {
		text, isErr := f.call(t, s.tool, s.args)
		if text != s.want || isErr != s.err {
			t.Errorf("step %d %s: got %q (isError %v)\nwant %q (isError %v)", k, s.tool, text, isErr, s.want, s.err)
		}
	}
}

// TestUnwritableTraceDir: start_recording answers isError with the reason.
func TestUnwritableTraceDir(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The trace dir sits under a regular file.
	g := startDir(t, filepath.Join(blocker, "traces"), server("a"))
	text, isErr := g.call(t, "reelier_start_recording", map[string]any{"name": "x"})
	if !isErr || !strings.HasPrefix(text, "Could not start recording: creating the trace directory: mkdir ") || !strings.Contains(text, "not a directory") {
		t.Errorf("got %q (isError %v)", text, isErr)
	}
	if text, isErr := g.call(t, "echo", map[string]any{"text": "still works"}); isErr || text != "a: still works" {
		t.Errorf("passthrough after the failure: %q", text)
	}
}

// TestToolUseID keeps the agent's per-call id on the call record.
func TestToolUseID(t *testing.T) {
	f := start(t, "a")
	path := f.startRecording(t, "ids")
	callSession(t, f.session, "echo", map[string]any{"text": "x"}, mcp.Meta{"claudecode/toolUseId": "toolu_01ABC"})
	callSession(t, f.session, "echo", map[string]any{"text": "y"}, nil)
	f.call(t, "reelier_stop_recording", nil)
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range tr.Records {
		if c, ok := r.(*trace.Call); ok {
			ids = append(ids, c.ToolUseID)
		}
	}
	if fmt.Sprint(ids) != "[toolu_01ABC ]" {
		t.Errorf("ids %q", ids)
	}
}

// TestConcurrentCalls makes 100 calls at once while recording and checks
// the trace: valid JSON Lines, seq strictly increasing, every call index
// paired with its own result.
func TestConcurrentCalls(t *testing.T) {
	f := start(t, "a")
	path := f.startRecording(t, "concurrent")
	const n = 100
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			text, isErr := f.call(t, "echo", map[string]any{"text": fmt.Sprint("m", k)})
			if isErr || text != fmt.Sprintf("a: m%d", k) {
				t.Errorf("call %d: %q", k, text)
			}
		})
	}
	wg.Wait()
	if text, _ := f.call(t, "reelier_stop_recording", nil); !strings.HasSuffix(text, "holds 100 calls.") {
		t.Errorf("stop: %q", text)
	}
	checkConcurrentTrace(t, path, n)
}

// checkConcurrentTrace checks a trace of n echo calls made at once.
func checkConcurrentTrace(t *testing.T, path string, n int) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	args := map[int]string{}
	for k, rec := range tr.Records {
		if rec.Sequence() != k {
			t.Fatalf("record %d has seq %d", k, rec.Sequence())
		}
		switch r := rec.(type) {
		case *trace.Call:
			var a struct{ Text string }
			json.Unmarshal(r.Args, &a)
			args[r.I] = a.Text
		case *trace.Result:
			text, _, _ := recordedText(r)
			if text != "a: "+args[r.I] {
				t.Errorf("result %d is %q; its call sent %q", r.I, text, args[r.I])
			}
			delete(args, r.I)
		}
	}
	if len(tr.Records) != 1+2*n || len(args) != 0 {
		t.Errorf("%d records, %d calls without result", len(tr.Records), len(args))
	}
}

// TestCollisionPrefixing wraps two servers with the same tools: the second
// one's are exposed as 1_<name>, with one warning each on stderr.
func TestCollisionPrefixing(t *testing.T) {
	f := start(t, "a", "b")
	if text, _ := f.call(t, "echo", map[string]any{"text": "x"}); text != "a: x" {
		t.Errorf("echo → %q", text)
	}
	if text, _ := f.call(t, "1_echo", map[string]any{"text": "x"}); text != "b: x" {
		t.Errorf("1_echo → %q", text)
	}
	want := fmt.Sprintf("[reelier] tool name collision: 'echo' from downstream 1 (%s) exposed as '1_echo'\n", server("b"))
	if !strings.Contains(f.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, f.stderr.String())
	}
	if got := strings.Count(f.stderr.String(), "tool name collision"); got != 9 {
		t.Errorf("%d collision warnings; want 9 (one per tool)", got)
	}
	path := f.startRecording(t, "twice")
	f.call(t, "1_add", map[string]any{"a": 1, "b": 1})
	f.call(t, "reelier_stop_recording", nil)
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := tr.Records[1].(*trace.Call); c.Tool != "1_add" {
		t.Errorf("recorded tool %q; want the exposed name 1_add", c.Tool)
	}
	if _, ok := tr.Meta.ToolAnnotations["1_add"]; !ok {
		t.Errorf("annotations not keyed by exposed name: %v", tr.Meta.ToolAnnotations)
	}
}

// TestDownstreamCrash: a downstream that dies mid-session yields an
// isError result naming it; the other keeps working and the trace stays
// valid.
func TestDownstreamCrash(t *testing.T) {
	f := start(t, "a", "b")
	path := f.startRecording(t, "crash")
	text, isErr := f.call(t, "1_crash", nil)
	if !isErr || !strings.Contains(text, "downstream 1 ("+server("b")+")") {
		t.Errorf("crash → %q (isError %v)", text, isErr)
	}
	text, isErr = f.call(t, "1_echo", map[string]any{"text": "again"})
	if !isErr || !strings.Contains(text, "downstream 1") || !strings.Contains(text, "exit status 3") {
		t.Errorf("call to the dead downstream → %q (isError %v)", text, isErr)
	}
	if text, isErr := f.call(t, "echo", map[string]any{"text": "alive"}); isErr || text != "a: alive" {
		t.Errorf("other downstream → %q (isError %v)", text, isErr)
	}
	f.call(t, "reelier_stop_recording", nil)
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var oks []bool
	for _, r := range tr.Records {
		if res, ok := r.(*trace.Result); ok {
			oks = append(oks, res.OK)
		}
	}
	if fmt.Sprint(oks) != "[false false true]" {
		t.Errorf("results ok = %v", oks)
	}
}

// TestStartFailures: a --wrap command that cannot be started fails the
// start with an error naming it.
func TestStartFailures(t *testing.T) {
	tests := []struct{ name, wrap, want string }{
		{"missing", "reelier-no-such-server --flag", `--wrap "reelier-no-such-server --flag": exec: "reelier-no-such-server": executable file not found in $PATH`},
		{"exits at once", "false", `--wrap "false": the server exited (exit status 1) before it finished starting`},
		{"not MCP", "echo hello", `--wrap "echo hello": the server exited (exit status 0) before it finished starting`},
		{"empty", "  ", `--wrap "  ": the command is empty`},
		{"bad quoting", `'unterminated`, `--wrap "'unterminated": EOF found when expecting closing quote`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := startErr(tt.wrap)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant %s…", err, tt.want)
			}
		})
	}
}

// TestProgressRelayed: a progress token in the call's _meta reaches the
// downstream, and its progress notification comes back to the agent.
func TestProgressRelayed(t *testing.T) {
	f := start(t, "a")
	got := make(chan *mcp.ProgressNotificationParams, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "progress-agent"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			got <- req.Params
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	go f.proxy.Serve(context.Background(), st)
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, _ := callSession(t, cs, "slow", map[string]any{"ms": 1}, mcp.Meta{"progressToken": "tok-1"})
	if text != "slept 1 ms" {
		t.Errorf("slow → %q", text)
	}
	select {
	case p := <-got:
		if p.ProgressToken != "tok-1" || p.Message != "started" {
			t.Errorf("progress %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification reached the agent")
	}
}
