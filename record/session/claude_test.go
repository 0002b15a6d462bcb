package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/testkit/testutil"
)

// ClaudeBinEnv names the real Claude Code CLI binary for the live test
// (.ci/run installs it from npm, @anthropic-ai/claude-agent-sdk).
const ClaudeBinEnv = "REELIER_CLAUDE_BIN"

// updateFixtures rewrites testdata/sessions/claude-*.jsonl from a live
// run: go test ./record/session -run TestClaudeLive -update-fixtures.
var updateFixtures = flag.Bool("update-fixtures", false, "rewrite the Claude Code transcript fixtures from a live run")

// TestMain lets this test binary double as the MCP test server the live
// Claude Code run is configured with.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}

// liveScript is what the fake model does, one entry per turn: the tool it
// calls and its input. fromItem marks an input built from the id the
// first result returned (the dataflow the compiler must recover).
var liveScript = []struct {
	tool, input string
	fromItem    bool
}{
	{tool: "mcp__items__create_item", input: `{"title":"weekly report"}`},
	{tool: "Bash", input: `{"command":"echo reelier-live-test","description":"Print a marker"}`},
	{tool: "mcp__items__get_item", input: `{"id":%q}`, fromItem: true},
	{tool: "mcp__items__fail", input: `{}`},
}

// TestClaudeLive runs the real Claude Code CLI, offline: its Messages API
// is a scripted fake on 127.0.0.1 and its one MCP server is this binary
// as the mcptest server. The run leaves an on-disk transcript and prints
// a stream-json stream; both must give the same skip list and compile to
// the same steps, and the stream must be recognised as one.
func TestClaudeLive(t *testing.T) {
	bin := os.Getenv(ClaudeBinEnv)
	if bin == "" {
		t.Skipf("%s is not set: install @anthropic-ai/claude-agent-sdk with npm and point %s at its claude binary to run the live Claude Code test (.ci/run does)", ClaudeBinEnv, ClaudeBinEnv)
	}
	api := newFakeMessagesAPI(t)
	home, proj := t.TempDir(), filepath.Join(t.TempDir(), "live-proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	mcpConfig := filepath.Join(home, "mcp.json")
	cfg := fmt.Sprintf(`{"mcpServers":{"items":{"command":%q,"args":[],"env":{%q:"1"}}}}`, os.Args[0], mcptest.ServeEnv)
	if err := os.WriteFile(mcpConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	stream := runClaudeOffline(t, bin, proj, home, api.URL, 3*time.Minute,
		"-p", "Create an item called weekly report and read it back.",
		"--output-format", "stream-json", "--verbose",
		"--mcp-config", mcpConfig, "--strict-mcp-config",
		"--allowedTools", "mcp__items__create_item mcp__items__get_item mcp__items__fail Bash")
	if problems := api.problems(); len(problems) > 0 {
		t.Fatalf("the fake API saw unexpected requests: %v", problems)
	}
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one on-disk transcript under %s, found %v", home, files)
	}
	onDisk, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	checkSameSteps(t, onDisk, stream)
	if *updateFixtures {
		writeFixture(t, "claude-file.jsonl", trimTranscript(t, onDisk))
		writeFixture(t, "claude-stream.jsonl", trimTranscript(t, stream))
	}
}

// TestClaudeFixtures holds the trimmed copies of a live run's transcripts
// to the same checks, so they run without the CLI.
func TestClaudeFixtures(t *testing.T) {
	onDisk := readFixture(t, "claude-file.jsonl")
	stream := readFixture(t, "claude-stream.jsonl")
	checkSameSteps(t, onDisk, stream)
}

// checkSameSteps reads both transcripts of one run and checks that they
// agree: same skip list, same trace calls, same compiled steps.
func checkSameSteps(t *testing.T, onDisk, stream []byte) {
	t.Helper()
	file := readKept(t, onDisk)
	live := readKept(t, stream)
	if file.Init || !live.Init {
		t.Errorf("Init: file %v, stream %v; want false, true", file.Init, live.Init)
	}
	var fileSkips, liveSkips bytes.Buffer
	file.WriteSkipped(&fileSkips)
	live.WriteSkipped(&liveSkips)
	if fileSkips.String() != liveSkips.String() {
		t.Errorf("skip lists differ:\nfile:\n%s\nstream:\n%s", fileSkips.String(), liveSkips.String())
	}
	if !strings.Contains(fileSkips.String(), "Bash ×1 — "+session.ReasonNotReplayable) {
		t.Errorf("the Bash call is not in the skip list:\n%s", fileSkips.String())
	}
	a := compileSession(t, file, session.ObservedFile)
	b := compileSession(t, live, session.ObservedStream)
	if d := testutil.DiffSkills(&ast.Skill{Steps: a.Skill.Steps}, &ast.Skill{Steps: b.Skill.Steps}); d != "" {
		t.Errorf("the two transcripts compile to different steps (-file +stream):\n%s", d)
	}
	var tools []string
	for _, st := range a.Skill.Steps {
		tools = append(tools, st.Action.Tool)
	}
	if got, want := strings.Join(tools, " "), "create_item get_item fail"; got != want {
		t.Errorf("steps call %q, want %q", got, want)
	}
	if a.Summary.Binds != 1 {
		t.Errorf("want the item id bound from step 1 into step 2, got %d binds", a.Summary.Binds)
	}
}

// compileSession compiles a session the way from-session does, with a
// fixed clock.
func compileSession(t *testing.T, s *session.Session, observed string) *compile.Output {
	t.Helper()
	now := func() time.Time { return time.Date(2026, 7, 19, 12, 0, 0, 0, time.UTC) }
	out, err := s.Compile(session.TraceOptions{Name: "live", Observed: observed, Now: now}, compile.Options{Source: "live.jsonl", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readKept(t *testing.T, data []byte) *session.Session {
	t.Helper()
	s, err := session.Read(bytes.NewReader(data), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// trimTranscript keeps every line a reader looks at (assistant, user,
// system, result) byte for byte, and of every other type only the first
// line that is under 2 KB: a real transcript, small enough to commit.
func trimTranscript(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	kept := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &head) != nil {
			continue
		}
		switch head.Type {
		case "assistant", "user", "system", "result":
		default:
			if kept[head.Type] || len(line) > 2<<10 {
				continue
			}
			kept[head.Type] = true
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func fixturePath(name string) string {
	return filepath.Join(testutil.Root(), "testdata", "sessions", name)
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFixture(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(fixturePath(name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeMessagesAPI is a scripted Anthropic Messages API: each request
// with tools gets the next step of liveScript as a streamed tool_use
// (chosen by how many tool results the conversation holds), and after
// the last step a closing text; a request without tools (a side query
// the CLI makes) gets a short text.
type fakeMessagesAPI struct {
	*httptest.Server
	apiLog
}

var itemID = regexp.MustCompile(`item-\d+`)

func newFakeMessagesAPI(t *testing.T) *fakeMessagesAPI {
	api := &fakeMessagesAPI{}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(api.Close)
	return api
}

func (api *fakeMessagesAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		api.fail("%s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || !req.Stream {
		api.fail("a request that is not a streamed Messages request: %v", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var results []string
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					results = append(results, string(b.Content))
				}
			}
		}
	}
	n := api.turn()
	sw := &sseWriter{w: w}
	w.Header().Set("Content-Type", "text/event-stream")
	sw.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%03d", n), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 1},
	}})
	turn := len(results)
	if len(req.Tools) == 0 || turn >= len(liveScript) {
		sw.text(0, "Done: the item was created and read back.")
		sw.stop("end_turn")
		return
	}
	step := liveScript[turn]
	input := step.input
	if step.fromItem {
		input = fmt.Sprintf(step.input, itemID.FindString(results[0]))
	}
	sw.text(0, "Calling "+step.tool+".")
	sw.event("content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{
		"type": "tool_use", "id": fmt.Sprintf("toolu_live_%02d", turn+1), "name": step.tool, "input": map[string]any{},
	}})
	sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": input}})
	sw.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 1})
	sw.stop("tool_use")
}

// sseWriter writes server-sent events in the Messages API's shape.
type sseWriter struct{ w http.ResponseWriter }

func (s *sseWriter) event(name string, v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
}

func (s *sseWriter) text(index int, text string) {
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
	s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": text}})
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
}

func (s *sseWriter) stop(reason string) {
	s.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// runClaudeOffline runs the Claude Code CLI in dir with a fresh HOME,
// talking only to the fake Messages API at apiURL, and returns its stdout;
// a failed run fails the test with both streams.
func runClaudeOffline(t *testing.T, bin, dir, home, apiURL string, timeout time.Duration, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + apiURL, "ANTHROPIC_API_KEY=sk-ant-offline-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude failed: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	return stdout.Bytes()
}
