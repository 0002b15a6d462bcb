package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/testkit/testutil"
)

// GeminiBinEnv names the real Gemini CLI for the live test (.ci/run
// installs @google/gemini-cli from the pinned npm lockfile).
const GeminiBinEnv = "REELIER_GEMINI_BIN"

// geminiStep is one turn the fake Gemini API asks for: the function it
// calls, by the name the CLI registers (mcp_<server>_<tool> for an MCP
// tool), and its arguments; fromItem marks arguments built from the id
// the first result returned.
type geminiStep struct {
	name, args string
	fromItem   bool
}

// geminiScript is what the fake Gemini API asks for in TestGeminiLive,
// one entry per turn.
var geminiScript = []geminiStep{
	{name: "mcp_items_create_item", args: `{"title":"weekly report"}`},
	{name: "run_shell_command", args: `{"command":"echo reelier-live-test","description":"Print a marker"}`},
	{name: "mcp_items_get_item", args: `{"id":%q}`, fromItem: true},
	{name: "mcp_items_fail", args: `{}`},
}

// TestGeminiLive runs the real Gemini CLI (non-interactive, -p) offline:
// its API is a scripted fake on 127.0.0.1 and its one MCP server, items,
// this test binary as the mcptest server, which `reelier install --agent
// gemini` fronts with `reelier mcp --wrap` in a settings file with
// comments (and `reelier uninstall` puts back at the end).
// The chat recording the CLI writes is read with ReadGemini, compiled by
// `reelier from-session`, and the skill replayed by `reelier run` against
// the same server.
func TestGeminiLive(t *testing.T) {
	bin := os.Getenv(GeminiBinEnv)
	if bin == "" {
		t.Skipf("%s is not set: install @google/gemini-cli with npm (.ci/npm) and point %s at its gemini binary to run the live Gemini CLI test (.ci/run does)", GeminiBinEnv, GeminiBinEnv)
	}
	reelier := testutil.ReelierBinary(t)
	api := newFakeGeminiAPI(t, geminiScript, "Done: the item was created and read back.")
	wrap := os.Args[0] // this binary serves mcptest when ServeEnv is set
	home, proj, settingsPath, original := geminiHome(t, "TestGeminiLive", fmt.Sprintf(
		`"items": {"command": %q, "args": [], "env": {%q: "1"}, "trust": true} /* the mcptest server */`, wrap, mcptest.ServeEnv))
	// reelier install --agent gemini fronts the server with the recorder,
	// comments kept; the CLI must accept the file it writes.
	reelierIn(t, reelier, proj, home, "install", "--agent", "gemini")
	installed, _ := os.ReadFile(settingsPath)
	settings := string(installed)
	if want := fmt.Sprintf(`"items": {"command": %q, "args": ["mcp", "--wrap", %q], "env": {%q: "1"}, "trust": true} /* the mcptest server */`, reelier, wrap, mcptest.ServeEnv); !strings.Contains(settings, want) {
		t.Fatalf("install did not front the server as expected:\n%s", settings)
	}
	file, data := geminiChat(t, bin, proj, home, api, "Create an item called weekly report and read it back.")
	if after, _ := os.ReadFile(settingsPath); string(after) != settings {
		t.Errorf("the CLI rewrote its settings.json (a key it migrates?):\n%s", after)
	}
	checkGeminiSession(t, data)
	_, out := replayGeminiSession(t, reelier, file, wrap, []string{mcptest.ServeEnv + "=1"})
	if !strings.Contains(out, "run_shell_command ×1") || !strings.Contains(out, "3 steps") {
		t.Errorf("from-session output does not list the skipped shell call and 3 steps:\n%s", out)
	}

	// /chat save in a resumed session writes a checkpoint of the same
	// conversation: the same calls, read from the model's history. In
	// -p mode the CLI then exits 42, the command's message being one it
	// does not print non-interactively; the checkpoint is written first.
	runGeminiOffline(t, bin, proj, home, api.URL, 2*time.Minute, []int{0, 42},
		"--resume", "latest", "-p", "/chat save live", "-m", "gemini-2.5-flash")
	saved, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "checkpoint-live.json"))
	if len(saved) != 1 {
		t.Fatalf("want the checkpoint /chat save live writes, found %v", saved)
	}
	checkpoint, err := os.ReadFile(saved[0])
	if err != nil {
		t.Fatal(err)
	}
	checkGeminiCheckpoint(t, checkpoint, data)

	reelierIn(t, reelier, proj, home, "uninstall", "--agent", "gemini")
	if restored, _ := os.ReadFile(settingsPath); string(restored) != original {
		t.Errorf("uninstall did not give back the settings byte for byte:\n%s", restored)
	}
	if *updateFixtures {
		writeFixture(t, "gemini-session.jsonl", scrubPaths(data, home, proj))
		writeFixture(t, "gemini-checkpoint.json", scrubPaths(checkpoint, home, proj))
	}
}

// geminiNPMScript is what the fake Gemini API asks for in
// TestGeminiLiveNPM: one entity with an observation created in
// @modelcontextprotocol/server-memory, then opened by name.
var geminiNPMScript = []geminiStep{
	{name: "mcp_memory_create_entities", args: `{"entities":[{"name":"weekly report","entityType":"report","observations":["due every Friday"]}]}`},
	{name: "mcp_memory_open_nodes", args: `{"names":["weekly report"]}`},
}

// TestGeminiLiveNPM runs the real Gemini CLI offline, as TestGeminiLive
// does, against a real npm MCP server: @modelcontextprotocol/server-memory
// from REELIER_NPM_DIR, fronted by `reelier install --agent gemini`. The
// chat recording the CLI writes is read with ReadGemini, compiled by
// `reelier from-session`, and the skill replayed by `reelier run --wrap`
// against a fresh server-memory (a new memory file).
func TestGeminiLiveNPM(t *testing.T) {
	bin := os.Getenv(GeminiBinEnv)
	if bin == "" {
		t.Skipf("%s is not set: install @google/gemini-cli with npm (.ci/npm) and point %s at its gemini binary to run the live Gemini CLI test (.ci/run does)", GeminiBinEnv, GeminiBinEnv)
	}
	node, memory := npmServerMemory(t)
	reelier := testutil.ReelierBinary(t)
	api := newFakeGeminiAPI(t, geminiNPMScript, "Done: the weekly report is in memory.")
	recorded := filepath.Join(t.TempDir(), "memory.jsonl")
	home, proj, settingsPath, _ := geminiHome(t, "TestGeminiLiveNPM", fmt.Sprintf(
		`"memory": {"command": %q, "args": [%q], "env": {"MEMORY_FILE_PATH": %q}, "trust": true}`, node, memory, recorded))
	reelierIn(t, reelier, proj, home, "install", "--agent", "gemini")
	if installed, _ := os.ReadFile(settingsPath); !strings.Contains(string(installed), fmt.Sprintf(`"command": %q, "args": ["mcp", "--wrap", `, reelier)) || !strings.Contains(string(installed), memory) {
		t.Fatalf("install did not front server-memory with reelier mcp --wrap:\n%s", installed)
	}

	file, data := geminiChat(t, bin, proj, home, api, "Remember that the weekly report is due every Friday, then read it back.")
	// The real server wrote the entity to the memory file of the settings.
	if graph, err := os.ReadFile(recorded); err != nil || !strings.Contains(string(graph), "due every Friday") {
		t.Errorf("server-memory's file %s does not hold the entity (err %v):\n%s", recorded, err, graph)
	}
	s := readGeminiKept(t, data)
	if p := s.Lines.Problems(); p != "" {
		t.Errorf("lines not read: %s (%s)", p, s.Lines.First)
	}
	var calls []string
	for _, c := range s.Calls {
		calls = append(calls, c.Tool.Server+"/"+c.Tool.Replay)
		if !c.OK {
			t.Errorf("%s/%s failed: %s", c.Tool.Server, c.Tool.Replay, c.Content)
		}
	}
	if got, want := strings.Join(calls, " "), "memory/create_entities memory/open_nodes"; got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if !strings.Contains(string(s.Calls[1].Content), "due every Friday") {
		t.Errorf("open_nodes' result does not hold the observation: %s", s.Calls[1].Content)
	}

	// Replay against a fresh server-memory: a new, empty memory file.
	fresh := filepath.Join(t.TempDir(), "memory.jsonl")
	skill, out := replayGeminiSession(t, reelier, file, fmt.Sprintf("'%s' '%s'", node, memory), []string{"MEMORY_FILE_PATH=" + fresh})
	if !strings.Contains(out, "2 steps") {
		t.Errorf("from-session output does not report 2 steps:\n%s", out)
	}
	if graph, err := os.ReadFile(fresh); err != nil || !strings.Contains(string(graph), "due every Friday") {
		t.Errorf("the replay did not create the entity in the fresh server's file %s (err %v):\n%s", fresh, err, graph)
	}
	// The skill from-session wrote holds both steps, on server-memory's tools.
	src, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	parsed, diags := grammar.Parse(skill, src)
	if diags.HasErrors() {
		t.Fatalf("the compiled skill does not parse: %v\n%s", diags, src)
	}
	var steps []string
	for _, st := range parsed.Steps {
		if st.Action == nil {
			steps = append(steps, "(no action)")
			continue
		}
		steps = append(steps, st.Action.Tool)
	}
	if got, want := strings.Join(steps, " "), "create_entities open_nodes"; got != want {
		t.Errorf("the skill's steps call %q, want %q:\n%s", got, want, src)
	}
}

// npmServerMemory finds node and @modelcontextprotocol/server-memory's
// dist/index.js under REELIER_NPM_DIR: skipped when the variable is
// unset, failed when it is set and either is missing.
func npmServerMemory(t *testing.T) (node, script string) {
	t.Helper()
	dir := os.Getenv(testutil.NPMDirEnv)
	if dir == "" {
		t.Skipf("%s is not set; run `npm ci --prefix .ci/node` and set %s=$PWD/.ci/node to run the test against server-memory (.ci/run does)", testutil.NPMDirEnv, testutil.NPMDirEnv)
	}
	script = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%s=%s but @modelcontextprotocol/server-memory is not installed there: %v", testutil.NPMDirEnv, dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not on PATH: %v", testutil.NPMDirEnv, err)
	}
	return node, script
}

// checkGeminiCheckpoint holds a checkpoint of the live conversation to
// the recording: the same calls with the same arguments and results, the
// same skip list, the same steps.
func checkGeminiCheckpoint(t *testing.T, checkpoint, recording []byte) {
	t.Helper()
	if !session.IsGeminiSession("checkpoint-live.json", checkpoint) {
		t.Error("IsGeminiSession does not recognise the checkpoint")
	}
	got, want := readGeminiKept(t, checkpoint), readGeminiKept(t, recording)
	if p := got.Lines.Problems(); p != "" {
		t.Errorf("checkpoint lines not read: %s (%s)", p, got.Lines.First)
	}
	if len(got.Calls) != len(want.Calls) {
		t.Fatalf("the checkpoint has %d calls, the recording %d", len(got.Calls), len(want.Calls))
	}
	for i, c := range got.Calls {
		w := want.Calls[i]
		if c.Tool != w.Tool || c.OK != w.OK || string(c.Content) != string(w.Content) || compact(c.Input) != compact(w.Input) {
			t.Errorf("call %d: %+v %s %s\nrecording: %+v %s %s", i, c.Tool, c.Input, c.Content, w.Tool, w.Input, w.Content)
		}
	}
	var a, b bytes.Buffer
	got.WriteSkipped(&a)
	want.WriteSkipped(&b)
	if a.String() != b.String() {
		t.Errorf("skip lists differ:\ncheckpoint:\n%s\nrecording:\n%s", a.String(), b.String())
	}
	x, y := compileSession(t, got, session.ObservedFile), compileSession(t, want, session.ObservedFile)
	if d := testutil.DiffSkills(&ast.Skill{Steps: x.Skill.Steps}, &ast.Skill{Steps: y.Skill.Steps}); d != "" {
		t.Errorf("the checkpoint and the recording compile to different steps (-checkpoint +recording):\n%s", d)
	}
}

// TestGeminiFixture holds the recording a live run wrote (its temporary
// paths replaced) to the same checks, so they run without the CLI.
func TestGeminiFixture(t *testing.T) {
	recording := readFixture(t, "gemini-session.jsonl")
	checkGeminiSession(t, recording)
	checkGeminiCheckpoint(t, readFixture(t, "gemini-checkpoint.json"), recording)
}

// checkGeminiSession reads a recording of the live script and checks
// what it must hold: the shell call skipped, the three MCP calls with
// their results, the item id bound into get_item, the tokens.
func checkGeminiSession(t *testing.T, data []byte) {
	t.Helper()
	s, err := session.ReadGemini(bytes.NewReader(data), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "gemini" || s.ID == "" || s.StartedAt.IsZero() {
		t.Errorf("host %q, id %q, start %v: want gemini and both set", s.Host, s.ID, s.StartedAt)
	}
	if p := s.Lines.Problems(); p != "" {
		t.Errorf("lines not read: %s (%s)", p, s.Lines.First)
	}
	var skips bytes.Buffer
	s.WriteSkipped(&skips)
	if want := "  run_shell_command ×1 — " + session.ReasonGeminiTool + "\n"; !strings.HasSuffix(skips.String(), want) || s.SkippedCalls() != 1 {
		t.Errorf("skip list:\n%s\nwant only the shell call", skips.String())
	}
	var tools []string
	for _, c := range s.Calls {
		tools = append(tools, c.Tool.Server+"/"+c.Tool.Replay)
	}
	if got, want := strings.Join(tools, " "), "items/create_item items/get_item items/fail"; got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if !s.Calls[0].OK || !s.Calls[1].OK || s.Calls[2].OK {
		t.Errorf("OK flags %v %v %v, want true true false", s.Calls[0].OK, s.Calls[1].OK, s.Calls[2].OK)
	}
	if !strings.Contains(string(s.Calls[0].Content), `item-`) || strings.Contains(string(s.Calls[0].Content), "untrusted_context") {
		t.Errorf("create_item's result is not the server's text: %s", s.Calls[0].Content)
	}
	if len(s.Usage) != 1 || s.Usage[0].Model != "gemini-2.5-flash" || s.Usage[0].Input == 0 || s.Usage[0].Output == 0 {
		t.Errorf("usage %+v, want one gemini-2.5-flash entry with input and output", s.Usage)
	}
	// Each of the five turns is logged with 120 prompt tokens, 30 of them
	// cached, 20 candidates and 5 thoughts (the fake's usageMetadata).
	if want := (session.Usage{Model: "gemini-2.5-flash", Input: 5 * 90, Output: 5 * 25, CacheRead: 5 * 30}); len(s.Usage) == 1 && s.Usage[0] != want {
		t.Errorf("usage %+v, want %+v", s.Usage[0], want)
	}
	out := compileSession(t, s, session.ObservedFile)
	var steps []string
	for _, st := range out.Skill.Steps {
		steps = append(steps, st.Action.Tool)
	}
	if got, want := strings.Join(steps, " "), "create_item get_item fail"; got != want {
		t.Errorf("steps call %q, want %q", got, want)
	}
	if out.Summary.Binds != 1 {
		t.Errorf("want the item id bound from step 1 into step 2, got %d binds", out.Summary.Binds)
	}
}

// replayGeminiSession compiles the recording with `reelier from-session`
// into dir/live.skill.md and replays the skill with `reelier run --wrap
// server`, env added to both commands' environment; it returns the
// skill's path and what from-session printed.
func replayGeminiSession(t *testing.T, reelier, file, server string, env []string) (skill, fromSession string) {
	t.Helper()
	dir := t.TempDir()
	skill = filepath.Join(dir, "live.skill.md")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		cmd := exec.CommandContext(ctx, reelier, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("reelier %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	fromSession = run("from-session", file, "--name", "gemini-live", "--out", skill)
	if out := run("run", skill, "--wrap", server, "--yes", "--runs-dir", filepath.Join(dir, "runs")); !strings.Contains(out, "PASSED") {
		t.Errorf("the replay did not pass:\n%s", out)
	}
	return skill, fromSession
}

// geminiHome makes a fresh HOME whose ~/.gemini/settings.json keeps the
// CLI offline and without prompts and holds the one MCP server entry
// given (JSON with comments), and a project folder; it returns both, the
// settings file and its text.
func geminiHome(t *testing.T, test, server string) (home, proj, settingsPath, settings string) {
	t.Helper()
	home, proj = t.TempDir(), filepath.Join(t.TempDir(), "live-proj")
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	settings = fmt.Sprintf(`{
  // written by %s: no network but the fake API, no prompts
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "mcpServers": {
    %s
  }
}
`, test, server)
	settingsPath = filepath.Join(home, ".gemini", "settings.json")
	if err := os.WriteFile(settingsPath, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, proj, settingsPath, settings
}

// geminiChat runs the Gemini CLI once with prompt against the fake API,
// checks the API saw one turn per script step and a closing one and
// nothing unexpected, and returns the one chat recording the CLI wrote
// under home with its bytes.
func geminiChat(t *testing.T, bin, proj, home string, api *fakeGeminiAPI, prompt string) (string, []byte) {
	t.Helper()
	out := runGeminiOffline(t, bin, proj, home, api.URL, 3*time.Minute, []int{0},
		"-p", prompt, "-m", "gemini-2.5-flash", "--yolo")
	if problems := api.problems(); len(problems) > 0 {
		t.Fatalf("the fake API saw unexpected requests: %v\nCLI output:\n%s", problems, out)
	}
	if turns := api.answered(); turns != len(api.script)+1 {
		t.Fatalf("the CLI made %d model turns, want %d (one per script step and a closing one)\nCLI output:\n%s", turns, len(api.script)+1, out)
	}
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.json*"))
	if len(files) != 1 {
		t.Fatalf("want one chat recording under %s, found %v\nCLI output:\n%s", home, files, out)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !session.IsGeminiSession(files[0], data) {
		t.Errorf("IsGeminiSession does not recognise %s", files[0])
	}
	return files[0], data
}

// reelierIn runs reelier in dir with HOME set to home.
func reelierIn(t *testing.T, reelier, dir, home string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, reelier, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reelier %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// scrubPaths replaces a live run's temporary folders with fixed ones, so
// the fixture names no test machine's paths.
func scrubPaths(data []byte, home, proj string) []byte {
	data = bytes.ReplaceAll(data, []byte(proj), []byte("/home/gemini-user/live-proj"))
	return bytes.ReplaceAll(data, []byte(home), []byte("/home/gemini-user"))
}

// fakeGeminiAPI is a scripted Gemini API: each streamGenerateContent
// request that offers tools gets the next step of its script as a
// functionCall (chosen by how many functionResponses the conversation
// holds), and after the last step the closing text; any other
// generateContent (a side query of the CLI) gets a short JSON text.
type fakeGeminiAPI struct {
	*httptest.Server
	script  []geminiStep
	closing string
	apiLog
}

func newFakeGeminiAPI(t *testing.T, script []geminiStep, closing string) *fakeGeminiAPI {
	api := &fakeGeminiAPI{script: script, closing: closing}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(api.Close)
	return api
}

// geminiUsage is the usageMetadata of every answer.
var geminiUsage = map[string]any{"promptTokenCount": 120, "candidatesTokenCount": 20, "cachedContentTokenCount": 30, "thoughtsTokenCount": 5, "totalTokenCount": 145}

func (api *fakeGeminiAPI) serve(w http.ResponseWriter, r *http.Request) {
	model, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if r.Method != http.MethodPost || !ok {
		api.fail("%s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []json.RawMessage `json:"tools"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		api.fail("%s: not a JSON request: %v", r.URL.Path, err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	switch method {
	case "countTokens":
		writeJSON(w, map[string]any{"totalTokens": 120})
		return
	case "generateContent": // a side query (routing, checks): answer JSON text
		writeJSON(w, geminiAnswer(map[string]any{"text": "{}"}))
		return
	case "streamGenerateContent":
	default:
		api.fail("unexpected method %s", r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var results []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				results = append(results, string(p.FunctionResponse.Response))
			}
		}
	}
	api.turn()
	if model != "gemini-2.5-flash" {
		api.fail("a turn for model %q, want the -m model", model)
	}
	var part map[string]any
	turn := len(results)
	switch {
	case len(req.Tools) == 0:
		api.fail("turn %d offers no tools", turn)
		part = map[string]any{"text": "No tools."}
	case turn >= len(api.script):
		part = map[string]any{"text": api.closing}
	default:
		step := api.script[turn]
		args := step.args
		if step.fromItem {
			args = fmt.Sprintf(step.args, itemID.FindString(results[0]))
		}
		part = map[string]any{"functionCall": map[string]any{"name": step.name, "args": json.RawMessage(args)}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	data, _ := json.Marshal(geminiAnswer(part))
	fmt.Fprintf(w, "data: %s\n\n", data)
}

// geminiAnswer is a GenerateContentResponse holding one part.
func geminiAnswer(part map[string]any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": geminiUsage,
		"modelVersion":  "gemini-2.5-flash",
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// runGeminiOffline runs the Gemini CLI in dir with a fresh HOME, talking
// only to the fake API at apiURL, and returns its output; a run that ends
// with a status not in ok, or times out, fails the test with it.
func runGeminiOffline(t *testing.T, bin, dir, home, apiURL string, timeout time.Duration, ok []int, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"GOOGLE_GEMINI_BASE_URL=" + apiURL, "GEMINI_API_KEY=offline-test-key",
		"NO_COLOR=1", "TERM=dumb",
	}
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gemini %s did not finish within %v:\n%s", strings.Join(args, " "), timeout, out.String())
	}
	if !slices.Contains(ok, cmd.ProcessState.ExitCode()) {
		t.Fatalf("gemini %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.Bytes()
}
