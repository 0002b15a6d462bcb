package record_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/trace"
)

// TestClaudeCode drives the real Claude Code CLI (the binary the npm
// package @anthropic-ai/claude-agent-sdk ships) through `reelier mcp`,
// offline: a scripted fake of the Messages API on 127.0.0.1 plays the
// model and asks for the control tools and a proxied tool in turn. Claude
// Code negotiates the newest MCP protocol revision it knows, so this also
// shows the proxy serving it, and it sends its own per-call id in _meta,
// which must land on the call record.
func TestClaudeCode(t *testing.T) {
	claude := claudeBinary(t)
	api := httptest.NewServer(&fakeModel{marker: "record an echo", script: []scriptedCall{
		{"mcp__rec__reelier_start_recording", `{"name":"cc"}`},
		{"mcp__rec__reelier_note", `{"text":"echo something"}`},
		{"mcp__rec__echo", `{"text":"from claude"}`},
		{"mcp__rec__reelier_stop_recording", `{}`},
	}})
	defer api.Close()

	dir := t.TempDir()
	traces, mcpLog := filepath.Join(dir, "traces"), filepath.Join(dir, "mcp.log")
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"rec": map[string]any{
		"command": reelierBin(t),
		"args":    []string{"mcp", "--wrap", server("a"), "--trace-dir", traces},
		"env":     map[string]string{"REELIER_MCP_LOG": mcpLog},
	}}})
	configPath := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(configPath, config, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "record an echo", "--mcp-config", configPath, "--strict-mcp-config",
		"--allowedTools", "mcp__rec", "--output-format", "stream-json", "--verbose")
	cmd.Env = append(cleanEnv(), "HOME="+dir, "ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=test-key-for-a-fake-api",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}

	wantResults := []string{
		"Recording to " + filepath.Join(traces, "cc-1.jsonl") + ".",
		"Noted.",
		"a: from claude",
		"Stopped recording. The trace " + filepath.Join(traces, "cc-1.jsonl") + " holds 1 call.",
	}
	got := toolResults(t, out)
	if len(got) != len(wantResults) {
		t.Fatalf("tool results %q", got)
	}
	for k, w := range wantResults {
		if !strings.HasPrefix(got[k], w) {
			t.Errorf("tool result %d: %q; want it to start %q", k, got[k], w)
		}
	}

	version := negotiated(t, mcpLog)
	if !slices.Contains(mcp.SupportedProtocolVersions(), version) {
		t.Errorf("Claude Code asked for protocol %q, which the proxy does not serve", version)
	}
	t.Logf("Claude Code negotiated MCP protocol %s", version)

	tr, err := trace.Load(filepath.Join(traces, "cc-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 4 {
		t.Fatalf("%d records", len(tr.Records))
	}
	if n := tr.Records[1].(*trace.Note); n.Text != "echo something" {
		t.Errorf("note %q", n.Text)
	}
	c := tr.Records[2].(*trace.Call)
	if c.Tool != "echo" || string(c.Args) != `{"text":"from claude"}` || c.ToolUseID != "toolu_02" {
		t.Errorf("call %+v; want echo with Claude Code's toolUseId toolu_02", c)
	}
	if text, _, _ := recordedText(tr.Records[3].(*trace.Result)); text != "a: from claude" {
		t.Errorf("result %q", text)
	}
}

// claudeBinary returns the Claude Code executable of this platform from the
// npm install.
func claudeBinary(t *testing.T) string {
	t.Helper()
	npmPackage(t, "@anthropic-ai/claude-agent-sdk")
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	pkg := npmPackage(t, fmt.Sprintf("@anthropic-ai/claude-agent-sdk-%s-%s", runtime.GOOS, arch))
	return filepath.Join(pkg, "claude")
}

// cleanEnv is this process's environment without any Anthropic or Claude
// Code settings, so the CLI sees only the fake.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANTHROPIC_") && !strings.HasPrefix(kv, "CLAUDE") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return env
}

// toolResults returns the text of every tool result in Claude Code's
// stream-json output.
func toolResults(t *testing.T, out []byte) []string {
	t.Helper()
	var texts []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "user" {
			continue
		}
		var blocks []struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(ev.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && len(b.Content) > 0 {
				texts = append(texts, b.Content[0].Text)
			}
		}
	}
	return texts
}

// negotiated returns the protocol revision the client asked for first, in
// the proxy's message log.
func negotiated(t *testing.T, logPath string) string {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		msg, ok := strings.CutPrefix(line, "read: ")
		if !ok {
			continue
		}
		var req struct {
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Meta            struct {
					ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(msg), &req) != nil {
			continue
		}
		if v := req.Params.Meta.ProtocolVersion; v != "" {
			return v
		}
		if v := req.Params.ProtocolVersion; v != "" {
			return v
		}
	}
	t.Fatalf("no protocol version in the message log:\n%s", data)
	return ""
}

// scriptedCall is one tool use the fake model asks for.
type scriptedCall struct{ tool, input string }

// fakeModel plays the Messages API: in the conversation that starts with
// marker, it asks for the scripted tool uses one turn each, then ends
// with "done"; any other request (the CLI's own side requests) gets
// "done" at once. Responses are streamed as server-sent events when asked.
type fakeModel struct {
	marker string
	script []scriptedCall
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
		return
	}
	if strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	used := 0
	for _, m := range req.Messages {
		var blocks []struct{ Type string }
		if m.Role == "assistant" && json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_use" {
					used++
				}
			}
		}
	}
	scripted := len(req.Messages) > 0 && strings.Contains(string(req.Messages[0].Content), f.marker)
	var block, delta map[string]any
	stop := "end_turn"
	if scripted && used < len(f.script) {
		s := f.script[used]
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", used), "name": s.tool, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": s.input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": "done"}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 1}
	message := map[string]any{"id": fmt.Sprintf("msg_%d", used), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	if !req.Stream {
		final := map[string]any{"type": block["type"]}
		for k, v := range block {
			final[k] = v
		}
		if block["type"] == "tool_use" {
			final["input"] = json.RawMessage(delta["partial_json"].(string))
		} else {
			final["text"] = "done"
		}
		message["content"], message["stop_reason"] = []any{final}, stop
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(message)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []struct {
		name string
		data any
	}{
		{"message_start", map[string]any{"type": "message_start", "message": message}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	} {
		data, _ := json.Marshal(ev.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, data)
	}
}
