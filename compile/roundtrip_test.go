package compile_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

// TestMain lets this test binary double as the Go MCP test server: a child
// started with mcptest.ServeEnv set serves MCP instead of running tests.
// Setting it afterwards makes every server the tests start inherit it.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Setenv(mcptest.ServeEnv, "1")
	os.Exit(m.Run())
}

// TestRoundTrip records a session through a built `reelier mcp` wrapping
// the Go test server (a child process), compiles the trace with `reelier
// compile`, and replays the skill against a fresh test server process
// through mcpx, as `run --wrap` does. Every step passes, and the id the
// replay binds is the one the replay's server made, not the recorded one.
func TestRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds reelier and runs MCP servers")
	}
	dir := t.TempDir()
	bin := testutil.ReelierBinary(t)
	server := fmt.Sprintf("'%s' -name rt", os.Args[0])
	traces := filepath.Join(dir, "traces")

	// Record.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr strings.Builder
	rec := exec.Command(bin, "mcp", "--trace-dir", traces, "--wrap", server)
	rec.Stderr = &syncWriter{w: &stderr}
	client := mcp.NewClient(&mcp.Implementation{Name: "roundtrip-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: rec}, nil)
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v\n%s", err, stderr.String())
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return strings.Join(text, "\n")
	}
	call("reelier_start_recording", map[string]any{"name": "roundtrip"})
	call("reelier_note", map[string]any{"text": "Create an item"})
	if got := call("create_item", map[string]any{"title": "demo"}); got != `{"id":"item-1","title":"demo"}` {
		t.Fatalf("create_item while recording: %s", got)
	}
	call("reelier_note", map[string]any{"text": "Read it back"})
	call("get_item", map[string]any{"id": "item-1"})
	call("reelier_note", map[string]any{"text": "Delete it"})
	call("delete_item", map[string]any{"id": "item-1"})
	call("reelier_stop_recording", nil)
	cs.Close()
	tracePath := filepath.Join(traces, "roundtrip-1.jsonl")

	// Compile.
	skillPath := filepath.Join(dir, "roundtrip.skill.md")
	out, err := exec.Command(bin, "compile", tracePath, "-o", skillPath).CombinedOutput()
	if err != nil {
		t.Fatalf("reelier compile: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "Compiled "+skillPath+" — 3 steps, 9 asserts, 1 bind\n") {
		t.Errorf("compile summary:\n%s", out)
	}
	src, err := os.ReadFile(skillPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`- action: get_item {"id": "{{id}}"}`,
		`- action: delete_item {"id": "{{id}}"}`, // step 2's result only echoed the id it was sent
		"- bind: id = json.id",
		"- effect: destructive", // create_item: the SDK declares idempotentHint: false, so a repeat makes a second item
		"- effect: destructive", // delete_item
	} {
		if !strings.Contains(string(src), want+"\n") {
			t.Errorf("compiled skill lacks %q:\n%s", want, src)
		}
	}
	skill, diags := grammar.Parse(skillPath, src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}

	// Replay twice against one fresh server: its second create_item makes
	// item-2, which the recording never saw.
	router, err := mcpx.Start(ctx, []string{server}, mcpx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close()
	reg := tool.Registry{}
	router.Register(reg, nil)
	for run, id := range []string{"item-1", "item-2"} {
		res := replay.Run(ctx, skill, replay.Options{Tools: reg, Yes: true})
		for _, st := range res.Steps {
			if st.Record.Outcome != "passed" {
				t.Fatalf("run %d step %d: %s %v", run+1, st.Record.N, st.Record.Outcome, st.Record.Failures)
			}
		}
		for _, n := range []int{1, 2} {
			if got, want := string(res.Steps[n].Action.Args), fmt.Sprintf(`{"id":%q}`, id); got != want {
				t.Errorf("run %d step %d sent %s, want the replay's own %s", run+1, n+1, got, want)
			}
		}
		if body := res.Steps[2].Observation.Body; body != `{"deleted":true}` {
			t.Errorf("run %d: delete_item answered %s", run+1, body)
		}
	}
}

// syncWriter serialises writes from the child's stderr copier.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
