package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/trace"
)

// These tests drive third-party MCP software from npm, installed by
// .ci/run into the folder named by REELIER_NPM_DIR.

// NPMDirEnv names the folder holding node_modules with the npm packages.
const NPMDirEnv = "REELIER_NPM_DIR"

// npmPackage returns the folder of an installed npm package. With
// REELIER_NPM_DIR unset (a developer machine that never ran the install)
// the test is skipped; with it set, a missing package fails the test, so
// CI cannot pass by skipping.
func npmPackage(t *testing.T, pkg string) string {
	t.Helper()
	dir := os.Getenv(NPMDirEnv)
	if dir == "" {
		t.Skipf("%s is not set; run `npm ci --prefix .ci/node` and set %s=$PWD/.ci/node to run this test", NPMDirEnv, NPMDirEnv)
	}
	p := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	if _, err := os.Stat(filepath.Join(p, "package.json")); err != nil {
		t.Fatalf("%s=%s but npm package %s is not installed there: %v", NPMDirEnv, dir, pkg, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("%s is set but node is not on PATH: %v", NPMDirEnv, err)
	}
	return p
}

// everything returns the --wrap command of @modelcontextprotocol/server-everything.
func everything(t *testing.T) string {
	dir := npmPackage(t, "@modelcontextprotocol/server-everything")
	return fmt.Sprintf("node '%s' stdio", filepath.Join(dir, "dist", "index.js"))
}

// TestEverythingServer: the reelier binary wrapping the reference server
// from npm: every tool passed through exactly (down to the fields the Go
// SDK does not model), a session recorded and checked record by record,
// then a skill replayed against the same server.
func TestEverythingServer(t *testing.T) {
	wrap := everything(t)
	p := startBinary(t, "", wrap)
	direct := directSession(t, wrap)
	want, err := direct.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want.Tools {
		k := slices.IndexFunc(got.Tools, func(g *mcp.Tool) bool { return g.Name == w.Name })
		if k < 0 || !jsonEqual(got.Tools[k], w) {
			t.Errorf("tool %s not passed through intact", w.Name)
		}
	}
	if len(got.Tools) != len(want.Tools)+3 {
		t.Errorf("%d tools through the proxy; want %d + 3 control tools", len(got.Tools), len(want.Tools))
	}

	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "everything"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "say hello"}, nil)
	if text, _ := callSession(t, cs, "echo", map[string]any{"message": "hello"}, nil); text != "Echo: hello" {
		t.Errorf("echo → %q", text)
	}
	callSession(t, cs, "reelier_note", map[string]any{"text": "add up"}, nil)
	if text, _ := callSession(t, cs, "get-sum", map[string]any{"a": 2, "b": 3}, nil); text != "The sum of 2 and 3 is 5." {
		t.Errorf("get-sum → %q", text)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-structured-content", Arguments: map[string]any{"location": "Chicago"}})
	if err != nil || res.StructuredContent == nil {
		t.Errorf("get-structured-content → %+v, %v", res, err)
	}
	stop, _ := callSession(t, cs, "reelier_stop_recording", nil, nil)
	path := filepath.Join(p.dir, "everything-1.jsonl")
	if stop != "Stopped recording. The trace "+path+" holds 3 calls." {
		t.Errorf("stop: %q", stop)
	}
	checkEverythingTrace(t, path, wrap)

	r := replayOver(t, []string{wrap}, everythingSkill)
	if !r.Record.Passed {
		for _, s := range r.Steps {
			t.Errorf("step %q: %s %v", s.Record.Title, s.Record.Outcome, s.Record.Failures)
		}
	}
}

// directSession connects the go-sdk client straight to a --wrap command,
// declaring what the proxy declares to its downstreams (sampling,
// elicitation, roots): server-everything offers some tools only to such
// a client.
func directSession(t *testing.T, command string) *mcp.ClientSession {
	t.Helper()
	argv := strings.Fields(strings.ReplaceAll(command, "'", ""))
	opts := &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, fmt.Errorf("not answered")
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("not answered")
		},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct"}, opts).Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func checkEverythingTrace(t *testing.T, path, wrap string) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Name != "everything" || fmt.Sprint(tr.Meta.Wrapped) != "["+wrap+"]" || tr.Meta.ToolAnnotations != nil {
		t.Errorf("meta %+v", tr.Meta)
	}
	want := []struct {
		kind trace.Kind
		text string // note text, call tool, or result text
		args string
	}{
		{trace.KindNote, "say hello", ""},
		{trace.KindCall, "echo", `{"message":"hello"}`},
		{trace.KindResult, "Echo: hello", ""},
		{trace.KindNote, "add up", ""},
		{trace.KindCall, "get-sum", `{"a":2,"b":3}`},
		{trace.KindResult, "The sum of 2 and 3 is 5.", ""},
		{trace.KindCall, "get-structured-content", `{"location":"Chicago"}`},
		{trace.KindResult, "", ""},
	}
	if len(tr.Records) != len(want)+1 {
		t.Fatalf("%d records; want %d", len(tr.Records), len(want)+1)
	}
	for k, w := range want {
		rec := tr.Records[k+1]
		if rec.Kind() != w.kind || rec.Sequence() != k+1 {
			t.Errorf("record %d: %s seq %d; want %s", k+1, rec.Kind(), rec.Sequence(), w.kind)
			continue
		}
		switch r := rec.(type) {
		case *trace.Note:
			if r.Text != w.text {
				t.Errorf("note %q; want %q", r.Text, w.text)
			}
		case *trace.Call:
			if r.Tool != w.text || string(r.Args) != w.args {
				t.Errorf("call %s %s; want %s %s", r.Tool, r.Args, w.text, w.args)
			}
		case *trace.Result:
			text, _, ok := recordedText(r)
			if !r.OK || !ok || w.text != "" && text != w.text {
				t.Errorf("result %q ok=%v; want %q", text, r.OK, w.text)
			}
			if w.text == "" && !strings.Contains(string(r.Body), `"structuredContent":{"temperature":`) {
				t.Errorf("structured content not kept verbatim: %s", r.Body)
			}
		}
	}
}

const everythingSkill = `---
name: everything
description: replay a session recorded against the reference server
---

## Steps

### Step 1 — Say hello
- intent: echo a greeting
- action: echo {"message": "hello"}
- assert: status == 200
- assert: body contains "Echo: hello"
- effect: read

### Step 2 — Add up
- intent: add two numbers
- action: get-sum {"a": 2, "b": 3}
- bind: sum = body match /is (\d+)\./
- assert: body contains "is 5."
- effect: read

### Step 3 — Weather as JSON
- intent: read structured weather
- action: get-structured-content {"location": "Chicago"}
- assert: json.temperature is number
- assert: json.conditions is string
- effect: read
`

// TestInspectorCLI: the MCP Inspector's CLI, a third-party client, lists
// and calls tools through reelier mcp.
func TestInspectorCLI(t *testing.T) {
	dir := npmPackage(t, "@modelcontextprotocol/inspector")
	wrap := everything(t)
	bin := reelierBin(t)
	traces := t.TempDir()
	inspect := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		argv := append([]string{filepath.Join(dir, "cli", "build", "cli.js"), "--cli", bin, "mcp", "--wrap", wrap, "--trace-dir", traces}, args...)
		out, err := exec.CommandContext(ctx, "node", argv...).CombinedOutput()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Execution   json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	out := inspect("--method", "tools/list")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list output: %v\n%s", err, out)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
		var exec bytes.Buffer
		json.Compact(&exec, tl.Execution)
		if tl.Name == "echo" && exec.String() != `{"taskSupport":"forbidden"}` {
			t.Errorf("echo's execution field was not passed through: %s", tl.Execution)
		}
	}
	for _, n := range []string{"echo", "get-sum", "reelier_start_recording", "reelier_note", "reelier_stop_recording"} {
		if !names[n] {
			t.Errorf("tools/list through the proxy lacks %s", n)
		}
	}
	var call struct {
		Content []struct{ Text string } `json:"content"`
	}
	out = inspect("--method", "tools/call", "--tool-name", "get-sum", "--tool-arg", "a=20", "--tool-arg", "b=22")
	if err := json.Unmarshal([]byte(out), &call); err != nil || len(call.Content) != 1 || call.Content[0].Text != "The sum of 20 and 22 is 42." {
		t.Errorf("tools/call output: %v\n%s", err, out)
	}
	out = inspect("--method", "tools/call", "--tool-name", "reelier_stop_recording")
	if !strings.Contains(out, "Not recording, so there is nothing to stop.") {
		t.Errorf("control tool through the inspector: %s", out)
	}
}
