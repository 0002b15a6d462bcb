package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// TestFromSessionCost compiles the committed transcripts of the live
// Claude Code run (testdata/sessions/claude-*.jsonl: five model turns of
// claude-opus-5-5, 60 input and 100 output tokens in all) and pins the
// whole report, whose last line weighs what the session cost against
// its replay: first with Reelier's own table, which has no price for the
// model, then with a user's prices file that has one.
func TestFromSessionCost(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	out := t.TempDir()
	run := func(fixture, name string) string {
		var stdout, stderr bytes.Buffer
		args := []string{"from-session", filepath.Join(testutil.Root(), "testdata", "sessions", fixture), "--name", name, "--out", filepath.Join(out, name+".skill.md")}
		if code := execute(newRootCmd(strings.NewReader(""), &stdout, &stderr), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("from-session %s: exit %d\n%s%s", fixture, code, stdout.String(), stderr.String())
		}
		return strings.ReplaceAll(stdout.String(), out, "OUT")
	}
	var b strings.Builder
	b.WriteString("== claude-file.jsonl, Reelier's prices\n" + run("claude-file.jsonl", "file"))
	if err := os.MkdirAll(filepath.Join(cfg, "reelier"), 0o755); err != nil {
		t.Fatal(err)
	}
	prices := `{"taken": "2026-12-07", "source": "a test", "models": {"claude-opus-5-5": {"input": "5", "output": "25", "cacheRead": "0.50", "cacheWrite": "6.25"}}}`
	if err := os.WriteFile(filepath.Join(cfg, "reelier", "prices.json"), []byte(prices), 0o644); err != nil {
		t.Fatal(err)
	}
	b.WriteString("== claude-file.jsonl, the user's prices\n" + run("claude-file.jsonl", "file-priced"))
	b.WriteString("== claude-stream.jsonl, the user's prices\n" + run("claude-stream.jsonl", "stream-priced"))
	testutil.Golden(t).Assert(t, "report", []byte(b.String()))
	// 60 input tokens at $5/M and 100 output at $25/M: 300 + 2,500
	// micro-dollars.
	if !strings.Contains(b.String(), "Cost: the session cost $0.0028 — 160 LLM tokens (claude-opus-5-5); a replay at Level 0 costs $0.00") {
		t.Errorf("the priced report has not the session's cost:\n%s", b.String())
	}
}
