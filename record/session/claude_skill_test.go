package session_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/trace"
)

// TestClaudeLoadsCompiledSkill: a skill compiled by reelier and placed
// where Claude Code loads project skills (.claude/skills/<name>/SKILL.md)
// is loaded by the real Claude Code CLI, offline against a fake Messages
// API on 127.0.0.1: the requests it sends the model list the skill's name
// and description.
func TestClaudeLoadsCompiledSkill(t *testing.T) {
	bin := os.Getenv(ClaudeBinEnv)
	if bin == "" {
		t.Skipf("%s is not set: install @anthropic-ai/claude-agent-sdk with npm and point %s at its claude binary to run this test (.ci/run does)", ClaudeBinEnv, ClaudeBinEnv)
	}
	tr, err := trace.Load(filepath.Join("..", "..", "compile", "testdata", "traces", "36-memory-echo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := compile.New(tr, compile.Options{Source: "36-memory-echo.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	var skill bytes.Buffer
	if err := x.Write(&skill); err != nil {
		t.Fatal(err)
	}
	name := x.Summary().Name
	home, proj := t.TempDir(), filepath.Join(t.TempDir(), "skills-proj")
	skillDir := filepath.Join(proj, ".claude", "skills", name)
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skillDir, "SKILL.md"), skill.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var bodies []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		sw := &sseWriter{w: w}
		w.Header().Set("Content-Type", "text/event-stream")
		sw.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_skill", "type": "message", "role": "assistant", "model": "claude-test",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 1},
		}})
		sw.text(0, "Noted.")
		sw.stop("end_turn")
	}))
	defer api.Close()

	runClaudeOffline(t, bin, proj, home, api.URL, 2*time.Minute, "-p", "Which skills do you have?", "--output-format", "text")
	mu.Lock()
	defer mu.Unlock()
	desc := x.Summary().Name
	if fm := strings.SplitN(skill.String(), "\n", 4); len(fm) > 2 {
		desc = strings.TrimPrefix(fm[2], "description: ")
	}
	for _, b := range bodies {
		if strings.Contains(b, name) && strings.Contains(b, jsonText(desc)) {
			return
		}
	}
	t.Errorf("no request to the model lists the skill %q with its description %q (%d requests)", name, desc, len(bodies))
}

// jsonText is s as it appears inside a JSON string (quotes and
// backslashes escaped, nothing else in these descriptions needs it).
func jsonText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}
