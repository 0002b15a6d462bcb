package receipt

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
)

const ciSkill = `---
name: %s
description: d
---

## Steps

### Step 1 — Read it
- intent: read
- action: http.get {"url": "https://x.example/a"}
- assert: status == 200
- effect: read

### Step 2 — Check it
- intent: check
- action: http.get {"url": "https://x.example/b"}
- assert: json.ok == true
- effect: read
`

func ciRecord(name string, v runlog.Verdict, steps ...runlog.StepRecord) *runlog.Record {
	r := &runlog.Record{Skill: name, StartedAt: "2026-07-20T08:00:00.000Z", FinishedAt: "2026-07-20T08:00:01.000Z", Steps: steps}
	r.Finish(v == runlog.VerdictInterrupted)
	return r
}

// TestCIReport: the job summary puts failed and healed steps, at their
// file and line, outside the collapsible part, names the patch to commit
// by its base name, shows a broken skill's diagnostics (escaped), says a
// failed push will not be retried, and shows no runner path; the
// annotations and outputs say the same.
func TestCIReport(t *testing.T) {
	parse := func(file, name string) CISkill {
		s, _ := grammar.Parse(file, []byte(strings.ReplaceAll(ciSkill, "%s", name)))
		return CISkill{File: file, Skill: s}
	}
	ok := runlog.StepRecord{N: 1, Title: "Read it", Outcome: runlog.Passed, Ms: 12}
	passed := parse("skills/a.skill.md", "a")
	passed.Record = ciRecord("a", runlog.VerdictPassed, ok, runlog.StepRecord{N: 2, Title: "Check it", Outcome: runlog.Passed, Ms: 30})
	failed := parse("skills/b.skill.md", "b")
	failed.Record = ciRecord("b", runlog.VerdictFailed, ok, runlog.StepRecord{N: 2, Title: "Check it", Outcome: runlog.Failed, Ms: 30, Kind: runlog.KindCheck,
		Failures: []string{"assert json.ok == true: got false\n::error::injected <b>bold</b>"}})
	// a's file asks two open questions (lines 22 and 23: the section
	// after its steps); its record kept them.
	passed.Skill, _ = grammar.Parse("skills/a.skill.md", []byte(strings.ReplaceAll(ciSkill, "%s", "a")+
		"\n## Open questions\n\n- Step 1 (http.get): is https://x.example/a fixed?\n- The trace has no recording date.\n"))
	passed.Record.OpenQuestions = []runlog.OpenQuestion{{Line: 22, Step: 1}, {Line: 23}}
	healed := parse("skills/c.skill.md", "c")
	healed.Record = ciRecord("c", runlog.VerdictPassed, ok, runlog.StepRecord{N: 2, Title: "Check it", Outcome: runlog.Passed, Level: 1, Ms: 900,
		Why: &runlog.Why{Change: "L1: the API renamed ok to okay"}})
	broken, diags := grammar.Parse("skills/broken.skill.md", []byte("---\nname: broken\ndescription: d\n---\n\n## Steps\n\n### Step 1 — <script>\n- action: http.get {\n"))
	if !diags.HasErrors() {
		t.Fatal("the broken skill parses")
	}
	missing := CISkill{File: "skills/nope.skill.md", ReadErr: &fs.PathError{Op: "open", Path: "/home/runner/work/_temp/x/skills/nope.skill.md", Err: fs.ErrNotExist}}
	r := &CIReport{Skills: []CISkill{passed, failed, healed, {File: "skills/broken.skill.md", Skill: broken, Diagnostics: diags}, missing},
		Push: "failed", PushPolicy: "always", Patch: "/home/runner/work/_temp/reelier-abc/reelier-heal.patch"}
	var b bytes.Buffer
	for _, f := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return r.Markdown(b) },
		func(b *bytes.Buffer) error { b.WriteString("==== annotations\n"); return r.Annotations(b) },
		func(b *bytes.Buffer) error { b.WriteString("==== outputs\n"); return r.Outputs(b) },
	} {
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
	}
	out := b.String()
	if strings.Contains(out, "/home/runner") || strings.Contains(out, "_temp") {
		t.Error("a runner path is shown")
	}
	details := strings.Index(out, "<details>")
	for _, w := range []string{"### Failed steps", "<code>skills/b.skill.md</code> step 2 (line 14)", "### Healed steps", "must be committed", "<code>reelier-heal.patch</code>", "does not parse", "invalid_json_args"} {
		if i := strings.Index(out, w); i < 0 || i > details {
			t.Errorf("%q is missing or inside the collapsible part", w)
		}
	}
	if strings.Contains(out, "\n::error::injected") {
		t.Error("a failure message started a workflow command of its own")
	}
	if strings.Contains(out, "resumes") {
		t.Error("the summary promises a push that resumes")
	}
	if got := strings.Join(r.Files(true), " "); got != "skills/a.skill.md skills/c.skill.md" {
		t.Errorf("passed files %q", got)
	}
	testutil.Golden(t).Assert(t, "report", b.Bytes())
}

// TestCIVerdict: the suite's word.
func TestCIVerdict(t *testing.T) {
	rec := func(v runlog.Verdict) CISkill {
		o := runlog.Passed
		switch v {
		case runlog.VerdictFailed:
			o = runlog.Failed
		case runlog.VerdictUnchecked:
			o = runlog.Unchecked
		}
		return CISkill{Record: ciRecord("x", v, runlog.StepRecord{N: 1, Outcome: o})}
	}
	tests := []struct {
		skills []CISkill
		want   runlog.Verdict
	}{
		{nil, ""},
		{[]CISkill{{File: "x"}}, ""},
		{[]CISkill{rec(runlog.VerdictPassed)}, runlog.VerdictPassed},
		{[]CISkill{rec(runlog.VerdictPassed), rec(runlog.VerdictUnchecked)}, runlog.VerdictUnchecked},
		{[]CISkill{rec(runlog.VerdictPassed), {File: "broken"}}, runlog.VerdictFailed},
		{[]CISkill{rec(runlog.VerdictUnchecked), rec(runlog.VerdictFailed)}, runlog.VerdictFailed},
		{[]CISkill{rec(runlog.VerdictFailed), rec(runlog.VerdictInterrupted)}, runlog.VerdictInterrupted},
	}
	for i, tt := range tests {
		if got := (&CIReport{Skills: tt.skills}).Verdict(); got != tt.want {
			t.Errorf("%d: verdict %q, want %q", i, got, tt.want)
		}
	}
}

// TestLoadCIReport: each file gets its own newest record from the runs
// folder, even when two files share a name; a missing file and a history
// that is not a record are reported, not fatal.
func TestLoadCIReport(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	for _, f := range []string{"one/s.skill.md", "two/s.skill.md"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.ReplaceAll(ciSkill, "%s", "s")), 0o644)
	}
	for _, f := range []string{"one/s.skill.md", "two/s.skill.md"} {
		r := ciRecord("s", runlog.VerdictPassed, runlog.StepRecord{N: 1, Outcome: runlog.Passed})
		r.Path = filepath.ToSlash(filepath.Join(dir, f))
		if f == "two/s.skill.md" {
			r = ciRecord("s", runlog.VerdictFailed, runlog.StepRecord{N: 1, Outcome: runlog.Failed})
			r.Path = filepath.ToSlash(filepath.Join(dir, f))
		}
		if _, err := runlog.Append(runs, r); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := LoadCIReport(runs, []string{filepath.Join(dir, "one/s.skill.md"), filepath.Join(dir, "two/s.skill.md"), filepath.Join(dir, "nope.skill.md")})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Skills[0].Record.RunVerdict(); v != runlog.VerdictPassed {
		t.Errorf("one: %s", v)
	}
	if v := rep.Skills[1].Record.RunVerdict(); v != runlog.VerdictFailed {
		t.Errorf("two: %s", v)
	}
	if !errors.Is(rep.Skills[2].ReadErr, fs.ErrNotExist) {
		t.Errorf("nope: %v", rep.Skills[2].ReadErr)
	}
}
