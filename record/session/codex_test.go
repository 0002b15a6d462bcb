package session_test

import (
	"bufio"
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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/testkit/testutil"
)

// CodexBinEnv names the real Codex CLI binary for the live test (.ci/run
// installs @openai/codex from the pinned lockfile).
const CodexBinEnv = "REELIER_CODEX_BIN"

// codexModel is the model the live test's Codex config names; the fake
// API answers for it.
const codexModel = "gpt-reelier-test"

// codexCall is one function call the fake Responses API asks for: the
// namespace Codex gives an MCP server's tools (mcp__<name>), the tool and
// its arguments. fromItem marks arguments built from the id the first
// result returned.
type codexCall struct {
	namespace, name, args string
	fromItem              bool
}

// codexScript is what the fake Responses API asks for in TestCodexLive,
// one call per turn.
var codexScript = []codexCall{
	{namespace: "mcp__items", name: "create_item", args: `{"title":"weekly report"}`},
	{name: "exec_command", args: `{"cmd":"echo reelier-live-test"}`},
	{namespace: "mcp__items", name: "get_item", args: `{"id":%q}`, fromItem: true},
	// No such item: the server answers with a tool error (isError).
	{namespace: "mcp__items", name: "get_item", args: `{"id":"item-999"}`},
	// fail has no annotations, so MCP's defaults call it destructive and
	// Codex, which may not ask anyone in exec mode, refuses it: a call
	// logged with an error instead of a result.
	{namespace: "mcp__items", name: "fail", args: `{}`},
}

// The usage the fake API reports for every response.
const (
	codexInputTokens  = 120
	codexCachedTokens = 20
	codexOutputTokens = 30
)

// TestCodexLive runs the real Codex CLI (codex exec), offline: its model
// provider is a fake Responses API on 127.0.0.1, its one MCP server is
// this test binary as the mcptest server, fronted with `reelier mcp
// --wrap` by `reelier install --agent codex`, and every other connection
// goes to a proxy address that refuses it. Codex writes its own rollout
// file; from-session compiles it, `reelier run` replays the skill
// against a fresh server, and `reelier uninstall --agent codex` gives the
// config back byte for byte.
func TestCodexLive(t *testing.T) {
	bin := os.Getenv(CodexBinEnv)
	if bin == "" {
		t.Skipf("%s is not set: install @openai/codex with npm and point %s at its codex program to run the live Codex CLI test (.ci/run does)", CodexBinEnv, CodexBinEnv)
	}
	reelier := testutil.ReelierBinary(t)
	api := newFakeResponsesAPI(t, codexScript, "Done: the item was created and read back.")
	home, codexHome, proj := codexDirs(t)
	// The MCP server as a user has it, before reelier install --agent
	// codex fronts it with the recorder.
	config := codexConfig("TestCodexLive", api.URL) + fmt.Sprintf(`
[mcp_servers.items]
command = %q # the mcptest server
env = { %s = "1" }
# Codex sends its first request without the tools of a server still
# starting unless the server is required.
required = true

# create_item is not read-only: Codex, which may ask no one in exec
# mode, runs it only when told to; fail stays unapproved.
[mcp_servers.items.tools.create_item]
approval_mode = "approve"
`, os.Args[0], mcptest.ServeEnv)
	configPath, codexEnv := installCodexConfig(t, reelier, home, codexHome, config)
	installed, _ := os.ReadFile(configPath)
	if !strings.Contains(string(installed), fmt.Sprintf("command = %q # the mcptest server", reelier)) {
		t.Fatalf("the installed config does not run reelier:\n%s", installed)
	}
	proxy := newRefusingProxy(t)
	stream := runCodexOffline(t, bin, proj, home, codexHome, proxy.URL, 3*time.Minute,
		"exec", "--json", "--skip-git-repo-check", "--strict-config", "Create an item called weekly report and read it back.")
	if problems := api.problems(); len(problems) > 0 {
		t.Fatalf("the fake API saw unexpected requests: %v", problems)
	}
	if tried := proxy.requests(); len(tried) > 0 {
		t.Errorf("Codex tried to reach the network (the test's proxy refused it): %v; turn what does it off in the test's config.toml", tried)
	}
	rollout, data := codexRollout(t, codexHome)
	checkCodexSession(t, data, api.answered())
	checkCodexStream(t, stream, data)

	// from-session on the file, as a user runs it, then the replay.
	skill := filepath.Join(t.TempDir(), "codex-live.skill.md")
	out := runReelier(t, reelier, nil, "from-session", rollout, "--name", "codex-live", "--out", skill)
	if !strings.Contains(out, "exec_command ×1") || !strings.Contains(out, "mcp__items__fail ×1 — "+session.ReasonCodexHostError) {
		t.Errorf("from-session's skip list misses the shell call or the refused call:\n%s", out)
	}
	if after, _ := os.ReadFile(rollout); !bytes.Equal(after, data) {
		t.Errorf("from-session changed the rollout file")
	}
	out = runReelier(t, reelier, nil, "run", "--allow-writes", "--wrap", os.Args[0], skill)
	if !strings.Contains(out, "3 total, 2 passed, 1 unchecked, 0 failed") || !strings.Contains(out, "PASSED") {
		t.Errorf("the replay did not pass (two checked steps, the tool error unchecked):\n%s", out)
	}
	// uninstall gives the user's config back byte for byte.
	runReelier(t, reelier, codexEnv, "uninstall", "--agent", "codex")
	if now, _ := os.ReadFile(configPath); string(now) != config {
		t.Errorf("after uninstall the config is not the one written:\n%s", now)
	}
	if *updateFixtures {
		writeFixture(t, "codex-live.jsonl", trimRollout(t, data))
		writeFixture(t, "codex-stream.jsonl", stream)
	}
}

// codexNPMScript is what the fake Responses API asks for in
// TestCodexLiveNPM: store one entity in server-memory, then read the
// graph that holds it. (read_graph, not open_nodes: a session file carries
// no tool annotations, and the compiler, which knows no verb "open", would
// make that step destructive, so the replay would refuse it without --yes.)
var codexNPMScript = []codexCall{
	{namespace: "mcp__memory", name: "create_entities", args: `{"entities":[{"name":"weekly-report","entityType":"report","observations":["due on Friday"]}]}`},
	{namespace: "mcp__memory", name: "read_graph", args: `{}`},
}

// TestCodexLiveNPM is TestCodexLive against a real MCP server from npm:
// the Codex CLI, offline against the fake Responses API, calls
// create_entities then read_graph on @modelcontextprotocol/server-memory
// (from REELIER_NPM_DIR), fronted with `reelier mcp --wrap` by `reelier
// install --agent codex`. The rollout file Codex writes is read with the
// Codex reader, compiled by from-session, and the skill replayed with
// --wrap against a fresh server-memory with an empty memory file.
func TestCodexLiveNPM(t *testing.T) {
	bin := os.Getenv(CodexBinEnv)
	if bin == "" {
		t.Skipf("%s is not set: install @openai/codex with npm and point %s at its codex program to run the live Codex CLI test (.ci/run does)", CodexBinEnv, CodexBinEnv)
	}
	npmDir := os.Getenv(testutil.NPMDirEnv)
	if npmDir == "" {
		t.Skipf("%s is not set: it names the folder holding node_modules/@modelcontextprotocol/server-memory (.ci/run sets it)", testutil.NPMDirEnv)
	}
	server := filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		t.Fatalf("%s=%s but server-memory is not installed there: %v", testutil.NPMDirEnv, npmDir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not on PATH: %v", testutil.NPMDirEnv, err)
	}
	reelier := testutil.ReelierBinary(t)
	api := newFakeResponsesAPI(t, codexNPMScript, "Done: the entity was stored and opened.")
	home, codexHome, proj := codexDirs(t)
	recorded := filepath.Join(t.TempDir(), "memory.jsonl")
	config := codexConfig("TestCodexLiveNPM", api.URL) + fmt.Sprintf(`
[mcp_servers.memory]
command = %q
args = [%q]
env = { MEMORY_FILE_PATH = %q }
required = true

# create_entities is not read-only: Codex, which may ask no one in exec
# mode, runs it only when told to.
[mcp_servers.memory.tools.create_entities]
approval_mode = "approve"
`, node, server, recorded)
	configPath, codexEnv := installCodexConfig(t, reelier, home, codexHome, config)
	installed, _ := os.ReadFile(configPath)
	if !strings.Contains(string(installed), fmt.Sprintf("command = %q", reelier)) || !strings.Contains(string(installed), server) {
		t.Fatalf("the installed config does not run server-memory through reelier:\n%s", installed)
	}
	proxy := newRefusingProxy(t)
	runCodexOffline(t, bin, proj, home, codexHome, proxy.URL, 3*time.Minute,
		"exec", "--json", "--skip-git-repo-check", "--strict-config", "Remember a weekly report due on Friday, then look it up.")
	if problems := api.problems(); len(problems) > 0 {
		t.Fatalf("the fake API saw unexpected requests: %v", problems)
	}
	if tried := proxy.requests(); len(tried) > 0 {
		t.Errorf("Codex tried to reach the network (the test's proxy refused it): %v", tried)
	}
	if n := api.answered(); n != len(codexNPMScript)+1 {
		t.Errorf("the fake API answered %d requests, want %d (one per call and the closing message)", n, len(codexNPMScript)+1)
	}
	if mem, _ := os.ReadFile(recorded); !bytes.Contains(mem, []byte(`"weekly-report"`)) {
		t.Errorf("server-memory's file %s does not hold the entity Codex created:\n%s", recorded, mem)
	}

	// The host's reader on the file Codex wrote: two MCP calls, both
	// answered, nothing skipped, and two steps.
	rollout, data := codexRollout(t, codexHome)
	s := readCodexKept(t, data)
	if s.Host != "codex" || s.SkippedCalls() != 0 {
		var skips bytes.Buffer
		s.WriteSkipped(&skips)
		t.Errorf("host %q, %d calls skipped, want codex and none:\n%s", s.Host, s.SkippedCalls(), skips.String())
	}
	var ok []string
	for _, c := range s.Calls {
		ok = append(ok, fmt.Sprint(c.OK))
	}
	if got := strings.Join(ok, " "); got != "true true" {
		t.Errorf("the calls' OK flags are %q, want \"true true\"", got)
	}
	if got := strings.Join(stepTools(compileSession(t, s, session.ObservedFile).Skill), " "); got != "create_entities read_graph" {
		t.Errorf("the session compiles to steps calling %q, want \"create_entities read_graph\"", got)
	}

	// from-session as a user runs it, then the replay against a fresh
	// server-memory.
	skillPath := filepath.Join(t.TempDir(), "codex-memory.skill.md")
	out := runReelier(t, reelier, nil, "from-session", rollout, "--name", "codex-memory", "--out", skillPath)
	src, err := os.ReadFile(skillPath)
	if err != nil {
		t.Fatalf("from-session wrote no skill: %v\n%s", err, out)
	}
	skill, diags := grammar.Parse(skillPath, src)
	if len(diags) > 0 || skill == nil {
		t.Fatalf("the compiled skill does not parse: %v\n%s", diags, src)
	}
	if got := strings.Join(stepTools(skill), " "); got != "create_entities read_graph" {
		t.Errorf("the compiled skill's steps call %q, want \"create_entities read_graph\":\n%s", got, src)
	}
	fresh := filepath.Join(t.TempDir(), "memory.jsonl")
	wrap := fmt.Sprintf("%s %s", node, server)
	out = runReelier(t, reelier, []string{"MEMORY_FILE_PATH=" + fresh}, "run", "--allow-writes", "--wrap", wrap, skillPath)
	if !strings.Contains(out, "2 total, 2 passed") || !strings.Contains(out, "0 failed") || !strings.Contains(out, "PASSED") {
		t.Errorf("the replay against a fresh server-memory did not pass both steps:\n%s", out)
	}
	if mem, _ := os.ReadFile(fresh); !bytes.Contains(mem, []byte(`"weekly-report"`)) {
		t.Errorf("the replay did not write the entity to the fresh memory file %s:\n%s", fresh, mem)
	}
	runReelier(t, reelier, codexEnv, "uninstall", "--agent", "codex")
	if now, _ := os.ReadFile(configPath); string(now) != config {
		t.Errorf("after uninstall the config is not the one written:\n%s", now)
	}
}

// stepTools lists the tools a skill's steps call, in order.
func stepTools(skill *ast.Skill) []string {
	var tools []string
	for _, st := range skill.Steps {
		tools = append(tools, st.Action.Tool)
	}
	return tools
}

// codexDirs makes the live tests' HOME, its .codex folder (CODEX_HOME)
// and the project folder Codex runs in.
func codexDirs(t *testing.T) (home, codexHome, proj string) {
	t.Helper()
	home = t.TempDir()
	codexHome = filepath.Join(home, ".codex")
	proj = filepath.Join(t.TempDir(), "live-proj")
	for _, d := range []string{codexHome, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, codexHome, proj
}

// codexConfig is the start of the live tests' config.toml: the fake
// model provider at apiURL and nothing that reaches out; each test adds
// its [mcp_servers] table.
func codexConfig(test, apiURL string) string {
	return fmt.Sprintf(`# written by %s
model = %q
model_provider = "fake"
check_for_update_on_startup = false

[analytics]
enabled = false

# What would reach out to github.com and chatgpt.com: the plugin
# marketplace and ChatGPT apps.
[features]
apps = false
plugins = false
remote_plugin = false

[model_providers.fake]
name = "fake Responses API"
base_url = %q
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, test, codexModel, apiURL+"/v1")
}

// installCodexConfig writes config as CODEX_HOME's config.toml and runs
// `reelier install --agent codex` on it, which must front its one MCP
// server with reelier mcp --wrap; it returns the file and the HOME and
// CODEX_HOME variables reelier install and uninstall run with.
func installCodexConfig(t *testing.T, reelier, home, codexHome, config string) (string, []string) {
	t.Helper()
	configPath := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	codexEnv := []string{"HOME=" + home, "CODEX_HOME=" + codexHome}
	out := runReelier(t, reelier, codexEnv, "install", "--agent", "codex")
	if !strings.Contains(out, "Wrapped 1 server with reelier mcp --wrap") {
		t.Fatalf("reelier install --agent codex did not wrap the server:\n%s", out)
	}
	return configPath, codexEnv
}

// codexRollout finds the one rollout file Codex wrote under codexHome
// and returns its path and bytes, which IsCodexSession must know by the
// name and by the first line.
func codexRollout(t *testing.T, codexHome string) (string, []byte) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one rollout file under %s, found %v", codexHome, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !session.IsCodexSession(files[0], data) || !session.IsCodexSession("session.jsonl", data) {
		t.Errorf("IsCodexSession does not know the file Codex wrote by its name or by its first line")
	}
	return files[0], data
}

// TestCodexFixtures holds the trimmed copy of a live run's rollout file to
// the same checks, and pins what is read of it, so they run without the
// CLI.
func TestCodexFixtures(t *testing.T) {
	data := readFixture(t, "codex-live.jsonl")
	checkCodexSession(t, data, 6)
	checkCodexStream(t, readFixture(t, "codex-stream.jsonl"), data)
	s, err := session.ReadCodex(bytes.NewReader(data), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "host %s usage %+v\n", s.Host, s.Usage)
	s.WriteSkipped(&b)
	s.WriteLines(&b)
	b.WriteString("\n-- skill --\n")
	b.Write(format.Source(compileSession(t, s, session.ObservedFile).Skill))
	testutil.Golden(t).Assert(t, "codex-live", b.Bytes())
}

// checkCodexSession reads a rollout file of the live run: the shell call
// and the refused call are skipped with their reasons, the three MCP
// calls compile to three steps with the item id bound from the first into
// the second, the third is the server's tool error, and the tokens are the
// fake API's, responses times over.
func checkCodexSession(t *testing.T, data []byte, responses int) {
	t.Helper()
	s, err := session.ReadCodex(bytes.NewReader(data), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "codex" || s.ID == "" || s.CWD == "" || s.StartedAt.IsZero() {
		t.Errorf("host %q id %q cwd %q started %v: want codex and the session's id, folder and start", s.Host, s.ID, s.CWD, s.StartedAt)
	}
	var skips bytes.Buffer
	s.WriteSkipped(&skips)
	for _, want := range []string{
		"exec_command ×1 — " + session.ReasonNotReplayable,
		"mcp__items__fail ×1 — " + session.ReasonCodexHostError,
	} {
		if !strings.Contains(skips.String(), want) {
			t.Errorf("the skip list misses %q:\n%s", want, skips.String())
		}
	}
	if s.SkippedCalls() != 2 {
		t.Errorf("%d calls skipped, want 2:\n%s", s.SkippedCalls(), skips.String())
	}
	if p := s.Lines.Problems(); p != "" {
		t.Errorf("lines not read: %s", p)
	}
	out := compileSession(t, s, session.ObservedFile)
	var tools []string
	for _, st := range out.Skill.Steps {
		tools = append(tools, st.Action.Tool)
	}
	if got, want := strings.Join(tools, " "), "create_item get_item get_item"; got != want {
		t.Errorf("steps call %q, want %q", got, want)
	}
	if out.Summary.Binds != 1 {
		t.Errorf("want the item id bound from step 1 into step 2, got %d binds", out.Summary.Binds)
	}
	var ok []string
	for _, c := range s.Calls {
		ok = append(ok, fmt.Sprint(c.OK))
	}
	if got := strings.Join(ok, " "); got != "true true false" {
		t.Errorf("the calls' OK flags are %s, want true true false", got)
	}
	want := []session.Usage{{
		Model:     codexModel,
		Input:     int64(responses) * (codexInputTokens - codexCachedTokens),
		Output:    int64(responses) * codexOutputTokens,
		CacheRead: int64(responses) * codexCachedTokens,
	}}
	if fmt.Sprint(s.Usage) != fmt.Sprint(want) {
		t.Errorf("usage %+v, want %+v (%d responses)", s.Usage, want, responses)
	}
}

// checkCodexStream reads what `codex exec --json` printed in the run that
// wrote the rollout file: it opens the stream (Init), and gives the same
// steps, the same MCP skips and the same tokens, which the stream counts
// under no model.
func checkCodexStream(t *testing.T, stream, rollout []byte) {
	t.Helper()
	if !session.IsCodexSession("-", stream) {
		t.Errorf("IsCodexSession does not know the stream by its first line")
	}
	live := readCodexKept(t, stream)
	file := readCodexKept(t, rollout)
	if !live.Init || file.Init {
		t.Errorf("Init: stream %v, file %v; want true, false", live.Init, file.Init)
	}
	if live.ID != file.ID {
		t.Errorf("the stream's thread id %q is not the rollout's session id %q", live.ID, file.ID)
	}
	var skips bytes.Buffer
	live.WriteSkipped(&skips)
	for _, want := range []string{
		"command_execution ×1 — " + session.ReasonNotReplayable,
		"mcp__items__fail ×1 — " + session.ReasonCodexHostError,
	} {
		if !strings.Contains(skips.String(), want) {
			t.Errorf("the stream's skip list misses %q:\n%s", want, skips.String())
		}
	}
	if len(live.Calls) != len(file.Calls) {
		t.Fatalf("%d calls in the stream, %d in the file", len(live.Calls), len(file.Calls))
	}
	for i, c := range live.Calls {
		if c.OK != file.Calls[i].OK || c.Tool != file.Calls[i].Tool {
			t.Errorf("call %d: stream %+v ok %v, file %+v ok %v", i+1, c.Tool, c.OK, file.Calls[i].Tool, file.Calls[i].OK)
		}
	}
	a := compileSession(t, file, session.ObservedFile)
	b := compileSession(t, live, session.ObservedStream)
	if d := testutil.DiffSkills(&ast.Skill{Steps: a.Skill.Steps}, &ast.Skill{Steps: b.Skill.Steps}); d != "" {
		t.Errorf("the rollout and the stream compile to different steps (-file +stream):\n%s", d)
	}
	if len(live.Usage) != 1 || len(file.Usage) != 1 || live.Usage[0].Model != "unknown" {
		t.Fatalf("usage: stream %+v, file %+v", live.Usage, file.Usage)
	}
	got, want := live.Usage[0], file.Usage[0]
	got.Model, want.Model = "", ""
	if got != want {
		t.Errorf("the stream's tokens %+v are not the rollout's %+v", got, want)
	}
}

func readCodexKept(t *testing.T, data []byte) *session.Session {
	t.Helper()
	s, err := session.ReadCodex(bytes.NewReader(data), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// trimRollout keeps the lines the reader looks at byte for byte, except
// the session_meta line's base instructions (Codex's whole system
// prompt), and of every other type only the first line under 2 KB.
func trimRollout(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	kept := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var head struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &head) != nil {
			continue
		}
		key := head.Type + "/" + head.Payload.Type
		switch key {
		case "session_meta/":
			line = trimBaseInstructions(t, line)
		case "turn_context/", "response_item/function_call", "response_item/function_call_output",
			"event_msg/item_completed", "event_msg/token_count":
		default:
			if kept[key] || len(line) > 2<<10 {
				continue
			}
			kept[key] = true
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// trimBaseInstructions replaces the text of a session_meta line's base
// instructions with a short one, leaving every other byte as it was.
func trimBaseInstructions(t *testing.T, line []byte) []byte {
	t.Helper()
	key := []byte(`"base_instructions":{"text":`)
	i := bytes.Index(line, key)
	if i < 0 {
		return line
	}
	start := i + len(key)
	var text string
	dec := json.NewDecoder(bytes.NewReader(line[start:]))
	if err := dec.Decode(&text); err != nil {
		t.Fatal(err)
	}
	end := start + int(dec.InputOffset())
	return slices.Concat(line[:start], []byte(`"(trimmed from the fixture)"`), line[end:])
}

// runReelier runs the reelier binary with the mcptest server's variable
// and env set, and returns its combined output; a failure fails the test.
func runReelier(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), mcptest.ServeEnv+"=1"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reelier %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// refusingProxy is an HTTP proxy on 127.0.0.1 that answers every request
// 403 and notes what it was asked for.
type refusingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRefusingProxy(t *testing.T) *refusingProxy {
	p := &refusingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.Host)
		p.mu.Unlock()
		http.Error(w, "offline test", http.StatusForbidden)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *refusingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// runCodexOffline runs the Codex CLI in dir with a fresh HOME and
// CODEX_HOME. Every connection that is not to 127.0.0.1 goes through the
// proxy at proxyURL, which refuses it, so an update check or telemetry
// fails at once instead of leaving the machine; the run is killed, with
// the servers it started, at the timeout.
func runCodexOffline(t *testing.T, bin, dir, home, codexHome, proxyURL string, timeout time.Duration, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	nowhere := proxyURL
	cmd.Env = []string{
		"HOME=" + home, "CODEX_HOME=" + codexHome, "PATH=" + os.Getenv("PATH"),
		"HTTP_PROXY=" + nowhere, "HTTPS_PROXY=" + nowhere, "ALL_PROXY=" + nowhere,
		"http_proxy=" + nowhere, "https_proxy=" + nowhere, "all_proxy=" + nowhere,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("codex did not finish within %v (killed)\nstderr:\n%s\nstdout:\n%s", timeout, stderr.String(), stdout.String())
	}
	if err != nil {
		t.Fatalf("codex failed: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	return stdout.Bytes()
}

// fakeResponsesAPI is a scripted OpenAI Responses API: each request with
// tools gets the next call of its script (chosen by how many call outputs
// the conversation holds) as a streamed function_call item, and after the
// last one a closing message; every response reports the same usage.
type fakeResponsesAPI struct {
	*httptest.Server
	script  []codexCall
	closing string
	apiLog
}

func newFakeResponsesAPI(t *testing.T, script []codexCall, closing string) *fakeResponsesAPI {
	api := &fakeResponsesAPI{script: script, closing: closing}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(api.Close)
	return api
}

func (api *fakeResponsesAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		api.fail("%s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string `json:"model"`
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
		Tools []json.RawMessage `json:"tools"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		api.fail("a request that is not a Responses request: %v", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if req.Model != codexModel {
		api.fail("a request for model %q", req.Model)
	}
	var outputs []string
	for _, in := range req.Input {
		if in.Type == "function_call_output" {
			outputs = append(outputs, string(in.Output))
		}
	}
	n := api.turn()
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%03d", n)
	sse := func(typ string, v map[string]any) {
		v["type"] = typ
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data)
	}
	sse("response.created", map[string]any{"response": map[string]any{"id": id}})
	turn := len(outputs)
	if len(req.Tools) > 0 && turn < len(api.script) {
		step := api.script[turn]
		if step.namespace != "" && !bytes.Contains(body, []byte(`"name":"`+step.namespace+`"`)) {
			api.fail("request %d lists no %s tools: the MCP server had not started", n, step.namespace)
		}
		args := step.args
		if step.fromItem {
			args = fmt.Sprintf(step.args, itemID.FindString(outputs[0]))
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%02d", turn+1), "call_id": fmt.Sprintf("call_live_%02d", turn+1), "name": step.name, "arguments": args}
		if step.namespace != "" {
			item["namespace"] = step.namespace
		}
		sse("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	} else {
		sse("response.output_item.done", map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%03d", n),
			"content": []any{map[string]any{"type": "output_text", "text": api.closing}},
		}})
	}
	sse("response.completed", map[string]any{"response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": codexInputTokens, "input_tokens_details": map[string]any{"cached_tokens": codexCachedTokens},
		"output_tokens": codexOutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": codexInputTokens + codexOutputTokens,
	}}})
}
