package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// transcript builds a Claude Code session file: a prompt, then each call
// as a tool_use line and its tool_result line.
func transcript(id string, calls ...[3]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"user","sessionId":%q,"cwd":"/home/ann/hotel","message":{"role":"user","content":"pull this week's bookings"},"timestamp":"2026-07-19T09:59:00.000Z"}`+"\n", id)
	for i, c := range calls {
		use := fmt.Sprintf("toolu_%02d", i)
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":%q,"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]},"timestamp":"2026-07-19T10:00:0%d.000Z"}`+"\n", id, use, c[0], c[1], i)
		fmt.Fprintf(&b, `{"type":"user","sessionId":%q,"message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%s}]},"timestamp":"2026-07-19T10:00:0%d.500Z"}`+"\n", id, use, c[2], i)
	}
	return b.String()
}

var (
	listCall = [3]string{"mcp__hotel__list_bookings", `{"week":"current"}`, `[{"type":"text","text":"{\"bookings\":[{\"id\":\"bk_1\"}]}"}]`}
	bashCall = [3]string{"Bash", `{"command":"ls"}`, `"a.txt"`}
)

// TestFromSession: a transcript in the history directory compiles to a
// skill in the working directory with its skip list; a second compile
// needs force; a session with nothing replayable is reported as such and
// writes nothing; scan lists exactly the session from_session compiles.
func TestFromSession(t *testing.T) {
	history := t.TempDir()
	writeFiles(t, history, map[string]string{
		"-home-ann-hotel/0f3c9a7e-5b1d-4d2e-9a11-7c0e2b6d4f10.jsonl": transcript("0f3c9a7e-5b1d-4d2e-9a11-7c0e2b6d4f10", bashCall, listCall),
		"-home-ann-hotel/bash-only.jsonl":                            transcript("9d2b7f00-1111-2222-3333-444455556666", bashCall),
	})
	dir := t.TempDir()
	cs := connect(t, Options{Dir: dir, HistoryDir: history})

	var scanned ScanOutput
	decode(t, call(t, cs, "reelier_scan", `{}`), &scanned)
	if scanned.TotalSessions != 2 || scanned.ReplayableSessions != 1 || len(scanned.Sessions) != 1 ||
		!strings.HasPrefix(scanned.Summary, "Found 2 session(s) in your agent history · 1 contain replayable workflows.") {
		t.Fatalf("scan: %+v", scanned)
	}
	found := scanned.Sessions[0]
	if found.Calls != 1 || len(found.Servers) != 1 || found.Servers[0] != "hotel" || found.StartedAt == "" {
		t.Errorf("scanned session: %+v", found)
	}

	var out FromSessionOutput
	args := fmt.Sprintf(`{"transcriptPath": %q}`, found.Path)
	decode(t, call(t, cs, "reelier_from_session", args), &out)
	if !out.OK || out.SkillPath != "session-0f3c9a7e.skill.md" || out.Steps != 1 || out.ReplayableCount != 1 ||
		len(out.Skipped) != 1 || out.Skipped[0].Tool != "Bash" || out.Observed != "file" {
		t.Errorf("from_session: %+v", out)
	}
	skill, err := os.ReadFile(filepath.Join(dir, out.SkillPath))
	if err != nil || !strings.Contains(string(skill), "- action: list_bookings {\"week\": \"current\"}") {
		t.Errorf("the compiled skill (%v):\n%s", err, skill)
	}

	// The overwrite gate, then force.
	wantError(t, call(t, cs, "reelier_from_session", args), "already exists", "force: true")
	decode(t, call(t, cs, "reelier_from_session", fmt.Sprintf(`{"transcriptPath": %q, "force": true, "name": "weekly", "out": "skills/weekly.skill.md"}`, found.Path)), &out)
	if !out.OK || out.SkillPath != "skills/weekly.skill.md" {
		t.Errorf("named and placed: %+v", out)
	}

	// A Reelier trace is not a transcript: the error says to compile it.
	writeFiles(t, history, map[string]string{"-home-ann-hotel/rec.jsonl": `{"t":"meta","seq":0,"name":"rec","startedAt":"2026-07-18T14:00:00.000Z","wrapped":[]}` + "\n"})
	wantError(t, call(t, cs, "reelier_from_session", fmt.Sprintf(`{"transcriptPath": %q}`, filepath.Join(history, "-home-ann-hotel", "rec.jsonl"))),
		"is a Reelier trace (recorded by reelier mcp)", "reelier compile")

	// Nothing replayable: ok false, the exact reason, the skip list, no file.
	out = FromSessionOutput{}
	decode(t, call(t, cs, "reelier_from_session", fmt.Sprintf(`{"transcriptPath": %q}`, filepath.Join(history, "-home-ann-hotel", "bash-only.jsonl"))), &out)
	if out.OK || out.Reason != "no deterministically-replayable tool calls found in this session — Reelier replays API/MCP tool workflows, not file edits or shell commands." ||
		out.ReplayableCount != 0 || len(out.Skipped) != 1 || out.SkillPath != "" {
		t.Errorf("nothing replayable: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "session-9d2b7f00.skill.md")); !os.IsNotExist(err) {
		t.Errorf("a skill was written for a session with nothing replayable: %v", err)
	}
	if entries, _ := os.ReadDir(history); len(entries) != 1 {
		t.Errorf("something was written to the history directory: %v", entries)
	}

	// A transcript inside the working directory, by relative path.
	writeFiles(t, dir, map[string]string{"logs/s.jsonl": transcript("abc", listCall)})
	decode(t, call(t, cs, "reelier_scan", `{"dir": "logs"}`), &scanned)
	if scanned.ReplayableSessions != 1 {
		t.Errorf("scan of a folder in the working directory: %+v", scanned)
	}
	decode(t, call(t, cs, "reelier_from_session", `{"transcriptPath": "logs/s.jsonl", "name": "from-logs"}`), &out)
	if !out.OK || out.SkillPath != "from-logs.skill.md" {
		t.Errorf("relative transcript: %+v", out)
	}
}

// TestScanWithoutHistory: no history directory, or one that does not
// exist, is said plainly.
func TestScanWithoutHistory(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	wantError(t, call(t, cs, "reelier_scan", `{}`), "no history directory", "pass dir")
	missing := filepath.Join(t.TempDir(), "projects")
	cs = connect(t, Options{Dir: t.TempDir(), HistoryDir: missing})
	wantError(t, call(t, cs, "reelier_scan", `{}`), "the history directory "+missing+" does not exist")
}

// TestLint: findings with positions, rules and fixes, for a file or a
// whole folder; a missing path is an error.
func TestLint(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"skills/bookings.skill.md": bookingsSkill,
		"skills/broken.skill.md":   brokenSkill,
		"skills/notes.md":          "not a skill",
	})
	cs := connect(t, Options{Dir: dir})
	var out LintOutput
	decode(t, call(t, cs, "reelier_lint", `{"path": "skills"}`), &out)
	if out.Files != 2 || out.Errors != 1 {
		t.Errorf("lint of a folder: %+v", out)
	}
	rules := map[string]LintDiagnostic{}
	for _, d := range out.Diagnostics {
		rules[d.Rule] = d
	}
	if d, ok := rules["parse_error"]; !ok || d.File != "skills/broken.skill.md" || d.Line != 11 || d.Severity != "error" {
		t.Errorf("parse error finding: %+v", d)
	}
	if d, ok := rules["unchecked_step"]; !ok || d.File != "skills/bookings.skill.md" || d.Step != 2 || !strings.HasPrefix(d.URL, "http") {
		t.Errorf("unchecked step finding: %+v (all: %+v)", d, out.Diagnostics)
	}
	decode(t, call(t, cs, "reelier_lint", `{"path": "skills/bookings.skill.md"}`), &out)
	if out.Files != 1 || out.Errors != 0 {
		t.Errorf("lint of one file: %+v", out)
	}
	wantError(t, call(t, cs, "reelier_lint", `{"path": "nope"}`), `path "nope"`, "no such file")
}
