package diff_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// The end-to-end test runs real processes: a reelier binary built from
// this tree records an MCP session (`reelier mcp`, driven by the go-sdk
// client) in front of this test binary serving the in-repo test server,
// compiles it, replays it with --trace, and diffs the two; then replays
// against a drifted server.

// driftEnv makes the test server's get_item answer "closed" instead of
// "open": the world changed under the skill.
const driftEnv = "REELIER_DIFFTEST_DRIFT"

// TestMain lets this test binary double as the test server: a child
// started with mcptest.ServeEnv set serves MCP instead of testing (a
// process given -test.* flags is running tests whatever its environment).
func TestMain(m *testing.M) {
	if os.Getenv(mcptest.ServeEnv) != "" && !hasTestFlag() {
		os.Exit(serve())
	}
	os.Setenv(mcptest.ServeEnv, "1")
	os.Exit(m.Run())
}

func hasTestFlag() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.") {
			return true
		}
	}
	return false
}

// serve runs the in-repo test server on stdio; with driftEnv set, its
// get_item reports every item closed.
func serve() int {
	s := mcptest.NewServer(mcptest.Options{Name: "mcptest"})
	if os.Getenv(driftEnv) != "" {
		mcp.AddTool(s, &mcp.Tool{Name: "get_item", Description: "Read an item by id.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, _ *mcp.CallToolRequest, in mcptest.ItemIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(`{"id":%q,"title":"demo","status":"closed"}`, in.ID)}}}, nil, nil
			})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		return 1
	}
	return 0
}

// serverCommand is the --wrap command that starts this binary as the
// test server.
func serverCommand() string { return fmt.Sprintf("'%s'", os.Args[0]) }

// reelier runs the binary in dir and returns its stdout, stderr and exit
// status.
func reelier(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(testutil.ReelierBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("reelier %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustRun runs reelier and fails unless it exits with want.
func mustRun(t *testing.T, dir string, env []string, want int, args ...string) string {
	t.Helper()
	out, errb, code := reelier(t, dir, env, args...)
	if code != want {
		t.Fatalf("reelier %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errb)
	}
	return out
}

// record drives `reelier mcp` through a session: make an item, read it
// back, echo, add; it returns the trace's path.
func record(t *testing.T, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	traces := filepath.Join(dir, "traces")
	cmd := exec.Command(testutil.ReelierBinary(t), "mcp", "--trace-dir", traces, "--wrap", serverCommand())
	cmd.Dir = dir
	client := mcp.NewClient(&mcp.Implementation{Name: "diff-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v", err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: error result %v", name, res.Content)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	call("reelier_start_recording", map[string]any{"name": "items"})
	call("reelier_note", map[string]any{"text": "Create an item"})
	var item struct{ ID string }
	if err := json.Unmarshal([]byte(call("create_item", map[string]any{"title": "demo"})), &item); err != nil {
		t.Fatal(err)
	}
	call("reelier_note", map[string]any{"text": "Read it back"})
	call("get_item", map[string]any{"id": item.ID})
	call("reelier_note", map[string]any{"text": "Say hi"})
	call("echo", map[string]any{"text": "hi"})
	call("reelier_note", map[string]any{"text": "Add two numbers"})
	call("add", map[string]any{"a": 1, "b": 2})
	call("reelier_stop_recording", nil)
	return filepath.Join(traces, "items-1.jsonl")
}

// TestRecordReplayDiff: a recording and its replay are all SAME (exit 0);
// the replay trace prints and compiles into a skill that replays; a replay
// against a drifted server is DRIFTED at json.status (exit 1), and so are
// the two run records.
func TestRecordReplayDiff(t *testing.T) {
	dir := t.TempDir()
	recording := record(t, dir)
	mustRun(t, dir, nil, 0, "compile", recording, "-o", "items.skill.md")

	out := mustRun(t, dir, nil, 0, "run", "--yes", "--wrap", serverCommand(), "--trace", "replay.jsonl", "items.skill.md")
	if !strings.Contains(out, "  replay trace: replay.jsonl\n") {
		t.Errorf("the receipt does not name the trace:\n%s", out)
	}
	tr, err := trace.Load(filepath.Join(dir, "replay.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Observed != "replay" || tr.Meta.Name != "items" {
		t.Errorf("meta %+v", tr.Meta)
	}

	out = mustRun(t, dir, nil, 0, "diff", recording, "replay.jsonl")
	if got := regexp.MustCompile(`(?m)^  SAME +\d`).FindAllString(out, -1); len(got) != 4 || strings.Contains(out, "DRIFTED") {
		t.Errorf("want 4 SAME steps:\n%s", out)
	}

	// The replay trace is a trace like any other.
	out = mustRun(t, dir, nil, 0, "trace", "replay.jsonl")
	for _, want := range []string{"## Read it back", `get_item {"id":"item-1"}`, "ok ", `"status":"open"`} {
		if !strings.Contains(out, want) {
			t.Errorf("reelier trace lacks %q:\n%s", want, out)
		}
	}
	mustRun(t, dir, nil, 0, "compile", "replay.jsonl", "-o", "again.skill.md")
	mustRun(t, dir, nil, 0, "run", "--yes", "--wrap", serverCommand(), "--runs-dir", "other-runs", "again.skill.md")

	// The world drifts: the replay fails at step 2, and its trace says
	// where; the steps it never reached are only in the recording.
	drift := []string{driftEnv + "=1"}
	mustRun(t, dir, drift, 1, "run", "--yes", "--wrap", serverCommand(), "--trace", "drift.jsonl", "items.skill.md")
	for _, args := range [][]string{{"diff", recording, "drift.jsonl"}, {"diff", "--skill", "items.skill.md", recording, "drift.jsonl"}} {
		out = mustRun(t, dir, nil, 1, args...)
		for _, want := range []string{
			"  SAME      1  create_item  Create an item\n",
			"  DRIFTED   2  get_item  Read it back\n               json.status: \"open\" → \"closed\"\n",
			"only in " + recording,
			"result:  DRIFTED\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v lacks %q:\n%s", args, want, out)
			}
		}
	}

	// The last two run records of the skill: the passing replay and the
	// drifted one.
	out = mustRun(t, dir, nil, 1, "diff", "items.skill.md")
	for _, want := range []string{
		"  SAME      1  create_item  Create an item\n",
		"  DRIFTED   2  get_item  Read it back\n               outcome: passed → failed\n",
		"(a run record keeps only a digest",
		"  DRIFTED   3  echo  Say hi\n               outcome: passed → skipped (an earlier step failed)\n  DRIFTED   4",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff of the runs lacks %q:\n%s", want, out)
		}
	}
}
