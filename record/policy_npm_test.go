package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// policyAgentResult is what testdata/policy_agent.mjs prints.
type policyAgentResult struct {
	Results []struct {
		Name    string `json:"name"`
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"results"`
	Asked []string `json:"asked"`
}

// runPolicyAgent runs the TypeScript SDK agent against `reelier mcp` with
// the policy file pol, recording into traceDir, and returns what it saw.
// The reelier it runs has reelier-seatbelt beside it: the policy is
// evaluated there, after the hand-off, as a user's would be.
func runPolicyAgent(t *testing.T, elicit, pol, traceDir, wrap string, calls string) policyAgentResult {
	t.Helper()
	got, stderr, err := policyAgent(t, testutil.SeatbeltBinary(t), nil, elicit, pol, traceDir, wrap, calls)
	if err != nil {
		t.Fatalf("the TypeScript agent: %v\nstderr:\n%s", err, stderr)
	}
	return got
}

// policyAgent runs the agent with bin as reelier and env as its
// environment (nil: this process's), returning what it printed, its
// stderr and how it ended.
func policyAgent(t *testing.T, bin string, env []string, elicit, pol, traceDir, wrap string, calls string) (policyAgentResult, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "policy_agent.mjs"),
		"--elicit", elicit, "--call", calls,
		"--", bin, "mcp", "--policy", pol, "--trace-dir", traceDir, "--wrap", wrap)
	cmd.Env = env
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return policyAgentResult{}, stderr.String(), err
	}
	var got policyAgentResult
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("agent output %q: %v", out, err)
	}
	return got, stderr.String(), nil
}

// TestPolicySeatbeltMissingNPM: reelier alone, without the
// reelier-seatbelt program beside it or on PATH, under a policy: the
// proxy does not start (exit 2, the message naming the policy and the
// install command), so the TypeScript agent's write never reaches the
// official filesystem server — the file is not there. With the program
// put beside the same reelier, the same agent's write lands: the policy
// (which allows it) is evaluated after the hand-off.
func TestPolicySeatbeltMissingNPM(t *testing.T) {
	pkg := npmPackage(t, "@modelcontextprotocol/server-filesystem")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wrap := fmt.Sprintf("node '%s' '%s'", filepath.Join(pkg, "dist", "index.js"), root)
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(pol, []byte("default: deny\nrules:\n  - name: writes\n    when: tool == \"write_file\"\n    action: allow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	built := testutil.SeatbeltBinary(t)
	solo := filepath.Join(t.TempDir(), "reelier")
	copyFile(t, built, solo)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REELIER_SEATBELT") {
			env = append(env, kv)
		}
	}
	target := filepath.Join(root, "landed.txt")
	calls, _ := json.Marshal([][]any{{"write_file", map[string]any{"path": target, "content": "through the seatbelt"}}})

	_, stderr, err := policyAgent(t, solo, env, "none", pol, t.TempDir(), wrap, string(calls))
	if err == nil {
		t.Fatal("the agent's session went on with no seatbelt program")
	}
	want := "reelier: the policy " + pol + " needs the reelier-seatbelt program, which holds the policy engine (CEL), and it was found neither beside reelier nor on PATH, so nothing runs: go install github.com/reelier/reelier/cmd/reelier-seatbelt@latest"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say why:\n%s", stderr)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the write reached the server with no seatbelt: %s exists (%v)", target, err)
	}

	copyFile(t, filepath.Join(filepath.Dir(built), "reelier-seatbelt"), filepath.Join(filepath.Dir(solo), "reelier-seatbelt"))
	got, stderr, err := policyAgent(t, solo, env, "none", pol, t.TempDir(), wrap, string(calls))
	if err != nil {
		t.Fatalf("with the program beside reelier: %v\n%s", err, stderr)
	}
	if len(got.Results) != 1 || got.Results[0].IsError {
		t.Fatalf("the allowed write: %+v", got.Results)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "through the seatbelt" {
		t.Fatalf("the allowed write did not land: %q, %v", b, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestPolicyFilesystemNPM: the official filesystem server from npm behind
// `reelier mcp --policy`, the official TypeScript SDK client as the agent.
// A denied write never reaches the server (the file is not there), an
// allowed one does, a dry-run move is answered and the file stays, and an
// ask goes to the agent's user: accepted, the folder is made; declined,
// or with an agent that cannot be asked, it is not. Every decision is on
// the trace.
func TestPolicyFilesystemNPM(t *testing.T) {
	pkg := npmPackage(t, "@modelcontextprotocol/server-filesystem")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "drafts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "drafts", "keep.txt"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	wrap := fmt.Sprintf("node '%s' '%s'", filepath.Join(pkg, "dist", "index.js"), root)
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(pol, []byte(`default: allow
rules:
  - name: drafts-only
    when: tool == "write_file" && !args.path.contains("/drafts/")
    action: deny
    message: writes go to drafts/ only
  - name: rehearse-moves
    when: tool == "move_file"
    action: dry-run
    message: moves are rehearsed
  - name: confirm-folders
    when: tool == "create_directory"
    action: ask
    message: a new folder
`), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := t.TempDir()
	secret := filepath.Join(root, "secret.txt")
	draft := filepath.Join(root, "drafts", "a.txt")
	calls, _ := json.Marshal([][]any{
		{"reelier_start_recording", map[string]any{"name": "seatbelt"}},
		{"write_file", map[string]any{"path": secret, "content": "should never land"}},
		{"write_file", map[string]any{"path": draft, "content": "a draft"}},
		{"move_file", map[string]any{"source": filepath.Join(root, "drafts", "keep.txt"), "destination": filepath.Join(root, "moved.txt")}},
		{"create_directory", map[string]any{"path": filepath.Join(root, "accepted")}},
		{"reelier_stop_recording", map[string]any{}},
	})
	got := runPolicyAgent(t, "accept", pol, traces, wrap, string(calls))
	r := got.Results
	if len(r) != 6 {
		t.Fatalf("%d results: %+v", len(r), r)
	}
	if !r[1].IsError || !strings.Contains(r[1].Text, `policy rule "drafts-only"`) || !strings.Contains(r[1].Text, "writes go to drafts/ only") {
		t.Errorf("denied write → %+v", r[1])
	}
	if _, err := os.Stat(secret); !os.IsNotExist(err) {
		t.Errorf("the denied write reached the server: %s exists (%v)", secret, err)
	}
	if b, err := os.ReadFile(draft); err != nil || string(b) != "a draft" || r[2].IsError {
		t.Errorf("allowed write → %+v; file %q, %v", r[2], b, err)
	}
	if r[3].IsError || !strings.Contains(r[3].Text, "dry run") {
		t.Errorf("dry-run move → %+v", r[3])
	}
	if _, err := os.Stat(filepath.Join(root, "drafts", "keep.txt")); err != nil {
		t.Errorf("the dry-run move reached the server: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "moved.txt")); !os.IsNotExist(err) {
		t.Errorf("moved.txt exists after a dry run: %v", err)
	}
	if r[4].IsError || len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "create_directory") {
		t.Errorf("ask, accepted → %+v; asked %q", r[4], got.Asked)
	}
	if st, err := os.Stat(filepath.Join(root, "accepted")); err != nil || !st.IsDir() {
		t.Errorf("the accepted folder was not made: %v", err)
	}

	tr, err := trace.Load(filepath.Join(traces, "seatbelt-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ tool, action, rule, asked string }{
		{"write_file", "deny", "drafts-only", ""},
		{"write_file", "allow", "", ""},
		{"move_file", "dry-run", "rehearse-moves", ""},
		{"create_directory", "ask", "confirm-folders", "accept"},
	}
	var results []*trace.Result
	tools := map[int]string{}
	for _, rec := range tr.Records {
		switch rec := rec.(type) {
		case *trace.Call:
			tools[rec.I] = rec.Tool
		case *trace.Result:
			results = append(results, rec)
		}
	}
	if len(results) != len(want) {
		t.Fatalf("%d results recorded; want %d", len(results), len(want))
	}
	for k, w := range want {
		res := results[k]
		d := res.Policy
		if tools[res.I] != w.tool || d == nil {
			t.Fatalf("result %d: tool %q, decision %+v", k, tools[res.I], d)
		}
		if d.Action != w.action || d.Rule != w.rule || d.Asked != w.asked || !strings.HasPrefix(d.Digest, "sha256:") {
			t.Errorf("call %d (%s): decision %+v; want %s by %q asked %q", k, w.tool, d, w.action, w.rule, w.asked)
		}
	}

	// Declined, and an agent that cannot be asked: no folder.
	for _, elicit := range []string{"decline", "none"} {
		dir := filepath.Join(root, "by-"+elicit)
		calls, _ := json.Marshal([][]any{{"create_directory", map[string]any{"path": dir}}})
		got := runPolicyAgent(t, elicit, pol, t.TempDir(), wrap, string(calls))
		if len(got.Results) != 1 || !got.Results[0].IsError || !strings.Contains(got.Results[0].Text, "confirm-folders") {
			t.Errorf("%s: %+v", elicit, got.Results)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s: the folder reached the server: %v", elicit, err)
		}
	}
}

// TestPolicyFromSkillMemoryNPM: a workflow recorded against the official
// memory server from npm, compiled, and turned into a policy with
// `reelier policy from-skill`; the live agent (the TypeScript SDK client)
// under that policy may make the skill's calls, and its off-skill call —
// delete_entities, and create_entities with an argument the skill never
// writes — is denied and never reaches the server: the memory file still
// holds the entity.
func TestPolicyFromSkillMemoryNPM(t *testing.T) {
	pkg := npmPackage(t, "@modelcontextprotocol/server-memory")
	wrap := fmt.Sprintf("node '%s'", filepath.Join(pkg, "dist", "index.js"))
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	t.Setenv("MEMORY_FILE_PATH", memory)
	p := startBinary(t, "", wrap)
	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "remember"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "remember Ada"}, nil)
	callSession(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []any{"wrote the first program"}}}}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "find her"}, nil)
	callSession(t, cs, "search_nodes", map[string]any{"query": "Ada"}, nil)
	callSession(t, cs, "reelier_stop_recording", nil, nil)

	work := t.TempDir()
	skill := filepath.Join(work, "remember.skill.md")
	if out, err := exec.Command(reelierBin(t), "compile", filepath.Join(p.dir, "remember-1.jsonl"), "-o", skill).CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	pol := filepath.Join(work, "policy.yaml")
	if out, err := exec.Command(testutil.SeatbeltBinary(t), "policy", "from-skill", skill, "-o", pol).CombinedOutput(); err != nil {
		t.Fatalf("policy from-skill: %v\n%s", err, out)
	}
	calls, _ := json.Marshal([][]any{
		{"search_nodes", map[string]any{"query": "Ada"}},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "Grace", "entityType": "person", "observations": []any{"wrote a compiler"}}}}},
		{"delete_entities", map[string]any{"entityNames": []any{"Ada"}}},
		{"create_entities", map[string]any{"entities": []any{}, "force": true}},
	})
	got := runPolicyAgent(t, "none", pol, t.TempDir(), wrap, string(calls))
	r := got.Results
	if len(r) != 4 {
		t.Fatalf("%d results: %+v", len(r), r)
	}
	if r[0].IsError || !strings.Contains(r[0].Text, "Ada") {
		t.Errorf("on-skill search_nodes → %+v", r[0])
	}
	if r[1].IsError {
		t.Errorf("on-skill create_entities → %+v", r[1])
	}
	for _, k := range []int{2, 3} {
		if !r[k].IsError || !strings.Contains(r[k].Text, "refused by the policy's default") {
			t.Errorf("off-skill %s → %+v", r[k].Name, r[k])
		}
	}
	b, err := os.ReadFile(memory)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"name":"Ada"`) || !strings.Contains(string(b), `"name":"Grace"`) {
		t.Errorf("the memory file after the run (Ada must survive the denied delete, Grace be created):\n%s", b)
	}
}
