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
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// The end-to-end tests run real processes: a reelier binary built from
// this tree, serving `reelier mcp` on stdio, in front of downstreams that
// are child processes too; the go-sdk client drives it over stdio.

// reelierBin returns the built reelier binary.
func reelierBin(t testing.TB) string { return testutil.ReelierBinary(t) }

// proxyProcess is a `reelier mcp` process and a client session on it.
type proxyProcess struct {
	session *mcp.ClientSession
	cmd     *exec.Cmd
	stderr  *os.File // the process writes straight to it
	dir     string
}

// cpu ends the session, waits for the process to exit and returns the
// CPU time (user and system) it used.
func (p *proxyProcess) cpu(t testing.TB) time.Duration {
	t.Helper()
	p.session.Close()
	if p.cmd.ProcessState == nil {
		t.Fatal("reelier mcp did not exit")
	}
	return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
}

// errText returns what the process wrote to stderr so far.
func (p *proxyProcess) errText(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(p.stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startBinary runs `reelier mcp` with the given --wrap commands and
// connects to it, asking for the protocol revision version ("" for the
// SDK's newest).
func startBinary(t testing.TB, version string, wrap ...string) *proxyProcess {
	t.Helper()
	p := &proxyProcess{dir: t.TempDir()}
	var err error
	if p.stderr, err = os.Create(filepath.Join(t.TempDir(), "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stderr.Close() })
	args := []string{"mcp", "--trace-dir", p.dir}
	for _, w := range wrap {
		args = append(args, "--wrap", w)
	}
	cmd := exec.Command(reelierBin(t), args...)
	cmd.Stderr = p.stderr
	p.cmd = cmd
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p.session, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v\nstderr:\n%s", err, p.errText(t))
	}
	t.Cleanup(func() { p.session.Close() })
	return p
}

// TestBinaryRecordsGoServer: the reelier binary wrapping our Go test
// server, driven over stdio with the newest protocol revision and with an
// older one: tools listed with annotations intact, a recorded session with
// notes, 100 concurrent calls, the trace checked record by record.
func TestBinaryRecordsGoServer(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		name := version
		if name == "" {
			name = "newest"
		}
		t.Run(name, func(t *testing.T) {
			p := startBinary(t, version, server("a"))
			if version == "" {
				if got := p.session.InitializeResult().ProtocolVersion; got != mcp.SupportedProtocolVersions()[0] {
					t.Errorf("negotiated %s; want the newest, %s", got, mcp.SupportedProtocolVersions()[0])
				}
			}
			tools, err := p.session.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range directTools(t) {
				k := slices.IndexFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == want.Name })
				if k < 0 || !jsonEqual(tools.Tools[k], want) {
					t.Errorf("tool %s not passed through intact", want.Name)
				}
			}
			path := recordBinarySession(t, p)
			checkBinaryTrace(t, path)
		})
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// recordBinarySession records notes, two calls and 100 concurrent calls,
// and returns the trace path.
func recordBinarySession(t *testing.T, p *proxyProcess) string {
	t.Helper()
	cs := p.session
	start, _ := callSession(t, cs, "reelier_start_recording", map[string]any{"name": "e2e"}, nil)
	path := filepath.Join(p.dir, "e2e-1.jsonl")
	if !strings.HasPrefix(start, "Recording to "+path) {
		t.Fatalf("start: %q", start)
	}
	callSession(t, cs, "reelier_note", map[string]any{"text": "make an item"}, nil)
	if text, _ := callSession(t, cs, "create_item", map[string]any{"title": "t"}, nil); text != `{"id":"item-1","title":"t"}` {
		t.Errorf("create_item → %q", text)
	}
	callSession(t, cs, "reelier_note", map[string]any{"text": "echo a lot"}, nil)
	var wg sync.WaitGroup
	for k := range 100 {
		wg.Go(func() {
			if text, _ := callSession(t, cs, "echo", map[string]any{"text": fmt.Sprint("m", k)}, nil); text != fmt.Sprintf("a: m%d", k) {
				t.Errorf("echo %d → %q", k, text)
			}
		})
	}
	wg.Wait()
	stop, _ := callSession(t, cs, "reelier_stop_recording", nil, nil)
	if want := fmt.Sprintf("Stopped recording. The trace %s holds 101 calls.", path); stop != want {
		t.Errorf("stop: %q\nwant %q", stop, want)
	}
	return path
}

// checkBinaryTrace checks the trace of recordBinarySession.
func checkBinaryTrace(t *testing.T, path string) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Meta
	if m.Name != "e2e" || len(m.Wrapped) != 1 || m.Observed != "proxy" || m.ToolAnnotations["create_item"].DestructiveHint == nil {
		t.Errorf("meta %+v", m)
	}
	if _, err := time.Parse(trace.TimeFormat, m.StartedAt); err != nil {
		t.Errorf("startedAt: %v", err)
	}
	head := tr.Records[1:4]
	if n, ok := head[0].(*trace.Note); !ok || n.Text != "make an item" {
		t.Errorf("record 1: %#v", head[0])
	}
	if c, ok := head[1].(*trace.Call); !ok || c.Tool != "create_item" || c.I != 0 || string(c.Args) != `{"title":"t"}` {
		t.Errorf("record 2: %#v", head[1])
	}
	if r, ok := head[2].(*trace.Result); !ok || r.I != 0 || !r.OK {
		t.Errorf("record 3: %#v", head[2])
	}
	if n, ok := tr.Records[4].(*trace.Note); !ok || n.Text != "echo a lot" {
		t.Errorf("record 4: %#v", tr.Records[4])
	}
	rest := &trace.Trace{Meta: m, Records: append([]trace.Record{m}, tr.Records[5:]...)}
	for k, r := range rest.Records[1:] {
		if r.Sequence() != k+5 {
			t.Fatalf("record %d has seq %d", k+5, r.Sequence())
		}
	}
	pairs := map[int]string{}
	for _, r := range rest.Records[1:] {
		switch r := r.(type) {
		case *trace.Call:
			var a struct{ Text string }
			json.Unmarshal(r.Args, &a)
			pairs[r.I] = a.Text
		case *trace.Result:
			if text, _, _ := recordedText(r); text != "a: "+pairs[r.I] {
				t.Errorf("result %d: %q for call %q", r.I, text, pairs[r.I])
			}
			delete(pairs, r.I)
		}
	}
	if len(tr.Records) != 5+200 || len(pairs) != 0 {
		t.Errorf("%d records, %d unpaired calls", len(tr.Records), len(pairs))
	}
}

// TestReplayAfterRecording records a session through the binary with two
// colliding downstreams, then replays a skill written from the trace
// against the same --wrap list through the runtime, with builtins still
// registered.
func TestReplayAfterRecording(t *testing.T) {
	wrap := []string{server("a"), server("b")}
	p := startBinary(t, "", wrap...)
	// The warnings are written before the handshake is answered.
	if stderr := p.errText(t); !strings.Contains(stderr, "exposed as '1_echo'") {
		t.Errorf("no collision warning on stderr:\n%s", stderr)
	}
	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "replay"}, nil)
	callSession(t, cs, "create_item", map[string]any{"title": "demo"}, nil)
	callSession(t, cs, "1_echo", map[string]any{"text": "hi"}, nil)
	callSession(t, cs, "reelier_stop_recording", nil, nil)
	tr, err := trace.Load(filepath.Join(p.dir, "replay-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, r := range tr.Records {
		if c, ok := r.(*trace.Call); ok {
			tools = append(tools, c.Tool)
		}
	}
	if fmt.Sprint(tools) != "[create_item 1_echo]" {
		t.Fatalf("recorded tools %v", tools)
	}
	res := replayOver(t, wrap, replaySkill)
	if !res.Record.Passed {
		for _, s := range res.Steps {
			t.Errorf("step %q: %s %v", s.Record.Title, s.Record.Outcome, s.Record.Failures)
		}
	}
	if got := res.Steps[2].Observation.Body; got != "b: hi" {
		t.Errorf("1_echo resolved to %q on replay; want downstream 1", got)
	}
}

// replaySkill uses the names the recording above exposed.
const replaySkill = `---
name: replay
description: create an item, read it back, echo through the second server
---

## Steps

### Step 1 — Create an item
- intent: create an item to read back
- action: create_item {"title": "demo"}
- assert: status == 200
- assert: json.id matches /^item-\d+$/
- bind: item_id = json.id
- effect: idempotent-write

### Step 2 — Read it back
- intent: read the item just made
- action: get_item {"id": "{{item_id}}"}
- assert: json.status == "open"
- assert: json.title == "demo"
- effect: read

### Step 3 — Echo through the second server
- intent: reach the prefixed tool
- action: 1_echo {"text": "hi"}
- assert: body contains "b: hi"
- effect: read

### Step 4 — A failing tool is status 500
- intent: map isError to 500
- action: fail {}
- assert: status == 500
- assert: body contains "on purpose"
- effect: read
`

// replay runs src against downstreams started with wrap, builtins included.
func replayOver(t *testing.T, wrap []string, src string) *replay.Result {
	t.Helper()
	skill, diags := grammar.Parse("replay.skill.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("skill: %v", diags)
	}
	router, err := mcpx.Start(context.Background(), wrap, mcpx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close()
	reg := tool.Registry{}
	reg["http.get"] = builtinStub{}
	router.Register(reg, nil)
	if _, ok := reg["http.get"].(builtinStub); !ok {
		t.Error("a builtin was replaced")
	}
	return replay.Run(context.Background(), skill, replay.Options{Tools: reg, AllowWrites: true})
}

// builtinStub stands in for a builtin tool in the registry.
type builtinStub struct{}

func (builtinStub) Effect() ast.Effect { return ast.EffectRead }

func (builtinStub) Call(context.Context, []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200}, nil
}
