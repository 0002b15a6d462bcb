package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// npmServerMemory returns the entry point of @modelcontextprotocol/server-memory
// installed under REELIER_NPM_DIR. With the variable unset (a machine that
// never ran the install) the test is skipped; with it set, a missing
// package fails it, so CI cannot pass by skipping.
func npmServerMemory(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("REELIER_NPM_DIR")
	if dir == "" {
		t.Skip("REELIER_NPM_DIR is not set; run `npm ci --prefix .ci/node` and set REELIER_NPM_DIR=$PWD/.ci/node to run this test")
	}
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("REELIER_NPM_DIR=%s but server-memory is not installed there: %v", dir, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("REELIER_NPM_DIR is set but node is not on PATH: %v", err)
	}
	return p
}

// TestApproveNPMServerMemory: approvals against the real npm memory
// server. An approved skill runs and its writes reach the server; once
// the approved step 3 is edited, the replay refuses it (exit 2) even with
// --yes, and the server's own file never holds what the edited step would
// have written.
func TestApproveNPMServerMemory(t *testing.T) {
	entry := npmServerMemory(t)
	dir := t.TempDir()
	memory := filepath.Join(dir, "memory.jsonl")
	t.Setenv("MEMORY_FILE_PATH", memory)
	wrap := fmt.Sprintf("node '%s'", entry)
	skill := filepath.Join(dir, "notes.skill.md")
	src := `---
name: notes
description: Remember a person and add an observation
---

## Servers

- ` + "`memory`: ``node " + entry + "``" + ` (tools: create_entities, read_graph, add_observations)

### Step 1 — Remember
- intent: Remember Ada
- action: create_entities {"entities": [{"name": "ada", "entityType": "person", "observations": ["approved-first"]}]}
- effect: idempotent-write

### Step 2 — Read
- intent: Read the graph
- action: read_graph {}
- assert: json.entities length >= 1
- effect: read

### Step 3 — Observe
- intent: Add an observation
- action: add_observations {"observations": [{"entityName": "ada", "contents": ["approved-second"]}]}
- effect: idempotent-write
`
	if err := os.WriteFile(skill, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reelier := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := execute(newRootCmd(strings.NewReader(""), &out, &out), args, strings.NewReader(""), &out, &out)
		return code, out.String()
	}
	if code, out := reelier("approve", skill); code != 0 || !strings.Contains(out, "step 1 approved") || !strings.Contains(out, "step 3 approved") {
		t.Fatalf("approve: %d\n%s", code, out)
	}
	runs := filepath.Join(dir, "runs")
	if code, out := reelier("run", "--quiet", "--allow-writes", "--runs-dir", runs, "--wrap", wrap, skill); code != 0 {
		t.Fatalf("the approved skill: exit %d\n%s", code, out)
	}
	got, err := os.ReadFile(memory)
	if err != nil || !bytes.Contains(got, []byte("approved-first")) || !bytes.Contains(got, []byte("approved-second")) {
		t.Fatalf("the server's file after the approved run (%v):\n%s", err, got)
	}

	// Step 3 edited after approval: refused, even with --yes.
	edited := strings.Replace(string(mustRead(t, skill)), `"approved-second"`, `"edited-after-review"`, 1)
	if err := os.WriteFile(skill, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := reelier("run", "--quiet", "--yes", "--runs-dir", runs, "--wrap", wrap, skill)
	if code != exitUsage {
		t.Errorf("the edited skill: exit %d, want %d\n%s", code, exitUsage, out)
	}
	if want := "step 3: refusing to run it: its argument template changed after it was approved"; !strings.Contains(out, want) {
		t.Errorf("the receipt does not say %q:\n%s", want, out)
	}
	got, _ = os.ReadFile(memory)
	if bytes.Contains(got, []byte("edited-after-review")) {
		t.Errorf("the refused write reached the server:\n%s", got)
	}
	rec := mustRead(t, filepath.Join(runs, "notes.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(rec)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"kind":"approval","action"`) || !strings.Contains(lines[1], `"approval":{"status":"stale"`) ||
		!strings.Contains(lines[0], `"approval":{"status":"approved"`) || !strings.Contains(lines[0], `"write":{"idempotencyKey":"`) {
		t.Errorf("run records:\n%s", rec)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
