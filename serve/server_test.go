package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/replay/runlog"
)

var allTools = []string{"reelier_find_skill", "reelier_from_session", "reelier_lint", "reelier_push", "reelier_replay", "reelier_scan"}

// TestToolsList: the client sees every tool, each described, each with an
// object input schema that admits no unknown argument; the replay tool
// has no level of any kind.
func TestToolsList(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 80 {
			t.Errorf("%s: description too thin to teach an agent when to call it: %q", tool.Name, tool.Description)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("%s: input schema admits unknown arguments: %s", tool.Name, schema)
		}
		if tool.Name == "reelier_replay" && strings.Contains(strings.ToLower(string(schema)), "level") {
			t.Errorf("reelier_replay's input schema mentions a level: %s", schema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Errorf("tools = %v, want %v", names, allTools)
	}
}

// TestBadInput: unknown tools, missing arguments, wrong types and
// arguments no tool takes are isError results with a message, never a
// protocol error, a crash or an empty success; the server answers the
// next call as usual.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"bookings.skill.md": bookingsSkill})
	cs := connect(t, Options{Dir: dir})
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"unknown tool", "reelier_run", `{}`, []string{`unknown tool "reelier_run"`, "reelier_replay, reelier_scan"}},
		{"misspelled tool", "reelier_scna", `{}`, []string{`Did you mean "reelier_scan"?`}},
		{"no arguments at all", "reelier_replay", ``, []string{"skillPath"}},
		{"replay without skillPath", "reelier_replay", `{}`, []string{`missing properties: ["skillPath"]`,
			"reelier_replay takes: skillPath (string, required), vars (object of strings), allowWrites (boolean), allowDestructive (boolean), cwd (string)."}}, // no wrap: not offered without AllowWrap
		{"from_session without transcriptPath", "reelier_from_session", `{}`, []string{"transcriptPath"}},
		{"push without skillPath", "reelier_push", `{}`, []string{"skillPath"}},
		{"lint without path", "reelier_lint", `{}`, []string{"path"}},
		{"find without task", "reelier_find_skill", `{}`, []string{"task"}},
		{"skillPath a number", "reelier_replay", `{"skillPath": 3}`, []string{"skillPath"}},
		{"vars a list", "reelier_replay", `{"skillPath": "bookings.skill.md", "vars": ["a"]}`, []string{"vars"}},
		{"force a string", "reelier_from_session", `{"transcriptPath": "t.jsonl", "force": "yes"}`, []string{"force"}},
		{"limit a string", "reelier_find_skill", `{"task": "bookings", "limit": "3"}`, []string{"limit", "reelier_find_skill takes: task (string, required), dir (string), limit (integer)."}},
		{"maxLevel is not an argument", "reelier_replay", `{"skillPath": "bookings.skill.md", "maxLevel": 2}`, []string{"maxLevel"}},
		{"empty skillPath", "reelier_replay", `{"skillPath": ""}`, []string{"skillPath", "empty"}},
		{"missing skill file", "reelier_replay", `{"skillPath": "nope.skill.md"}`, []string{`skillPath "nope.skill.md": no such file`}},
		{"bad var name", "reelier_replay", `{"skillPath": "bookings.skill.md", "vars": {"1x": "2"}}`, []string{`invalid name "1x"`}},
		{"reserved var", "reelier_replay", `{"skillPath": "bookings.skill.md", "vars": {"today": "x"}}`, []string{`"today" is reserved`}},
		{"wrap over a surface without it", "reelier_replay", `{"skillPath": "bookings.skill.md", "wrap": ["true"]}`, []string{"only available when reelier serve runs on stdio"}},
		{"task of stop words only", "reelier_find_skill", `{"task": "do it for me please"}`, []string{"no words left"}},
		{"limit out of range", "reelier_find_skill", `{"task": "bookings", "limit": 500}`, []string{"limit must be between 1 and 50"}},
		{"cwd a file", "reelier_replay", `{"skillPath": "bookings.skill.md", "cwd": "bookings.skill.md"}`, []string{"not a directory"}},
		{"transcript a directory", "reelier_from_session", `{"transcriptPath": "."}`, []string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, cs, tt.tool, tt.args), tt.want...)
		})
	}
	var out FindSkillOutput
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "list bookings"}`), &out)
	if len(out.Skills) != 1 {
		t.Errorf("the server did not answer normally after the bad calls: %+v", out)
	}
}

// TestPathEscape: a path that leads out of the working directory — by
// "..", absolutely, or through a symbolic link, to a file or a folder,
// existing or not — is refused, and nothing outside is read or written.
func TestPathEscape(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{
		"secret.skill.md": bookingsSkill,
		"t.jsonl":         "{}\n",
	})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"bookings.skill.md": bookingsSkill, "sub/keep": "", "runs-out/bookings.skill.md": bookingsSkill})
	for link, target := range map[string]string{
		"out":                filepath.Join(outside),
		"linked.skill.md":    filepath.Join(outside, "secret.skill.md"),
		"dangling.skill.md":  filepath.Join(outside, "new.skill.md"),
		"sub/up":             "../..",
		"runs-out/.reelier":  outside,
		"linked-transcript":  filepath.Join(outside, "t.jsonl"),
		"relative.skill.md":  "../" + filepath.Base(outside) + "/secret.skill.md",
		"sub/deep.skill.md":  filepath.Join(outside, "secret.skill.md"),
		"sub/linkdir":        outside,
		"sub/other.skill.md": "/etc/passwd",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, Options{Dir: dir})
	tests := []struct{ name, tool, args string }{
		{"dot-dot", "reelier_replay", `{"skillPath": "../../etc/passwd"}`},
		{"absolute", "reelier_lint", `{"path": "/etc/passwd"}`},
		{"absolute outside", "reelier_replay", `{"skillPath": "` + filepath.Join(outside, "secret.skill.md") + `"}`},
		{"home", "reelier_lint", `{"path": "~/.ssh/id_ed25519"}`},
		{"linked file", "reelier_replay", `{"skillPath": "linked.skill.md"}`},
		{"linked folder", "reelier_lint", `{"path": "out/secret.skill.md"}`},
		{"relative link", "reelier_push", `{"skillPath": "relative.skill.md", "dryRun": true}`},
		{"link climbing up", "reelier_find_skill", `{"task": "bookings", "dir": "sub/up"}`},
		{"dot-dot after a folder", "reelier_lint", `{"path": "sub/../../x.skill.md"}`},
		{"cwd outside", "reelier_replay", `{"skillPath": "bookings.skill.md", "cwd": ".."}`},
		{"cwd through a link", "reelier_push", `{"skillPath": "secret.skill.md", "cwd": "out", "dryRun": true}`},
		{"transcript through a link", "reelier_from_session", `{"transcriptPath": "linked-transcript"}`},
		{"transcript absolute", "reelier_from_session", `{"transcriptPath": "` + filepath.Join(outside, "t.jsonl") + `"}`},
		{"scan dir outside", "reelier_scan", `{"dir": "` + outside + `"}`},
		{"out through a link", "reelier_from_session", `{"transcriptPath": "bookings.skill.md", "out": "out/new.skill.md"}`},
		{"out outside", "reelier_from_session", `{"transcriptPath": "bookings.skill.md", "out": "../new.skill.md"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, cs, tt.tool, tt.args), "outside the working directory")
		})
	}
	// A runs directory that a link leads out of: the replay is refused
	// before a record is written outside.
	api, _ := fakeAPI(t)
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "bookings.skill.md", "cwd": "runs-out", "vars": {"base": "`+api+`"}}`),
		"run record could not be written", "outside the working directory")
	// A link to nowhere cannot be used to create a file wherever it points.
	wantError(t, call(t, cs, "reelier_lint", `{"path": "dangling.skill.md"}`), "cannot be resolved")
	// Linting the whole folder walks past links to folders, and refuses a
	// linked file that leads out instead of reading it.
	wantError(t, call(t, cs, "reelier_lint", `{"path": "sub"}`), "deep.skill.md")
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("something was written outside the working directory: %v", entries)
	}
}

// TestReplay: a Level-0 replay returns the run record exactly as it is
// appended to .reelier/runs, unchecked steps are not passes, a failing
// step is a result (not an error), destructive steps need consent, and a
// skill that does not parse runs nothing.
func TestReplay(t *testing.T) {
	api, hits := fakeAPI(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bookings.skill.md":      bookingsSkill,
		"skills/check.skill.md":  checkSkill,
		"skills/cancel.skill.md": cancelSkill,
		"skills/broken.skill.md": brokenSkill,
	})
	cs := connect(t, Options{Dir: dir})
	vars := `"vars": {"base": "` + api + `"}`

	var rec runlog.Record
	decode(t, call(t, cs, "reelier_replay", `{"skillPath": "bookings.skill.md", `+vars+`}`), &rec)
	if !rec.Passed || rec.Totals.Passed != 1 || rec.Totals.Unchecked != 1 || rec.Steps[1].Outcome != runlog.Unchecked {
		t.Errorf("record: %+v", rec)
	}
	for _, st := range rec.Steps {
		if st.Level != 0 || st.LLM != nil || st.EscalationAttempted != nil {
			t.Errorf("step %d escalated: %+v", st.N, st)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, ".reelier", "runs", "bookings.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := runlog.Marshal(&rec)
	if string(data) != string(line) {
		t.Errorf("returned record differs from the one appended:\n got %s\nfile %s", line, data)
	}

	// A failing step: passed false, not an error; the rest skipped.
	res := call(t, cs, "reelier_replay", `{"skillPath": "check.skill.md", "cwd": "skills", `+vars+`}`)
	decode(t, res, &rec)
	if rec.Passed || rec.Steps[0].Outcome != runlog.Failed || rec.Steps[1].Outcome != runlog.Skipped || rec.Steps[0].Why == nil {
		t.Errorf("failing replay: %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(dir, "skills", ".reelier", "runs", "checker.jsonl")); err != nil {
		t.Errorf("cwd's run history: %v", err)
	}

	// Destructive: refused (the step fails, showing the call) without
	// consent; executed with it.
	before := hits.Load()
	decode(t, call(t, cs, "reelier_replay", `{"skillPath": "skills/cancel.skill.md", `+vars+`}`), &rec)
	if rec.Passed || !strings.Contains(rec.Steps[0].Failures[0], "Refusing to execute destructive step") || hits.Load() != before {
		t.Errorf("destructive step without consent: %+v (requests %d)", rec, hits.Load()-before)
	}
	decode(t, call(t, cs, "reelier_replay", `{"skillPath": "skills/cancel.skill.md", "allowDestructive": true, `+vars+`}`), &rec)
	if !rec.Passed {
		t.Errorf("destructive step with consent: %+v", rec)
	}

	// A skill that does not parse: every diagnostic, nothing run.
	before = hits.Load()
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "skills/broken.skill.md"}`),
		"does not parse, so nothing ran", "skills/broken.skill.md:11:11: error: step 1: Unrecognized assert expression")
	if hits.Load() != before {
		t.Error("a skill that does not parse made requests")
	}

	// Inputs missing: an error naming them, nothing run, no record (an
	// agent's natural first call must not pollute the history).
	history := func() int {
		data, _ := os.ReadFile(filepath.Join(dir, ".reelier", "runs", "bookings.jsonl"))
		return strings.Count(string(data), "\n")
	}
	lines := history()
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "bookings.skill.md"}`), "the skill needs base (step 1, line", "nothing ran and no run record was written")
	if hits.Load() != before || history() != lines {
		t.Errorf("a replay with inputs missing ran (%d requests) or wrote a record (%d → %d lines)", hits.Load()-before, lines, history())
	}
	// The record names its file and content and carries a verdict.
	decode(t, call(t, cs, "reelier_replay", `{"skillPath": "bookings.skill.md", `+vars+`}`), &rec)
	if rec.Verdict != runlog.VerdictPassed || rec.Path != "bookings.skill.md" || len(rec.SkillSHA256) != 64 {
		t.Errorf("record verdict %q path %q sha %q", rec.Verdict, rec.Path, rec.SkillSHA256)
	}
}

// TestReplayWrap: on stdio, wrap starts MCP servers and the replay calls
// their tools; they are stopped when the call ends.
func TestReplayWrap(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"sum.skill.md": `---
name: sum
description: Add two numbers with the calculator server
---

## Steps

### Step 1 — Add
- intent: Add 2 and 3
- action: add {"a": 2, "b": 3}
- assert: json.sum == 5
- effect: read
`})
	cs := connect(t, Options{Dir: dir, AllowWrap: true})
	wrap, _ := json.Marshal([]string{fmt.Sprintf("'%s' -name calc", os.Args[0])})
	var rec runlog.Record
	decode(t, call(t, cs, "reelier_replay", `{"skillPath": "sum.skill.md", "wrap": `+string(wrap)+`}`), &rec)
	if !rec.Passed || rec.Totals.Passed != 1 {
		t.Errorf("replay against a wrapped server: %+v", rec)
	}
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "sum.skill.md", "wrap": ["/nonexistent/server"]}`), "wrap:")
}
