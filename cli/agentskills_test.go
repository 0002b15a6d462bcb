package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentSkillsSamples is a folder of real Agent Skills (anthropics/skills),
// read from beside the project and never copied into it.
const agentSkillsSamples = "../../shared/agent-skills-samples"

// TestMixedSkillsFolder: a folder of ordinary Agent Skills — SKILL.md files
// with no Reelier steps — is left alone by the walking commands: lint
// exits 0, fmt lists nothing and rewrites nothing, and run or parse of one
// says it is not a replayable skill (exit 2). A Reelier skill kept as
// SKILL.md in the same folder is linted and formatted as any skill.
func TestMixedSkillsFolder(t *testing.T) {
	if _, err := os.Stat(agentSkillsSamples); err != nil {
		t.Skipf("no Agent Skills samples at %s (the shared folder beside the project): %v", agentSkillsSamples, err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(agentSkillsSamples)); err != nil {
		t.Fatal(err)
	}
	// A Reelier skill, not canonical, as a SKILL.md in its own folder.
	mine := filepath.Join(dir, "weekly-bookings", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("---\nname: weekly-bookings\ndescription: List bookings\n---\n\n### Step 1 -   Bookings\n- action: http.get {\"url\": \"https://api.example.test/b\"}\n- intent: List them\n- assert: status == 200\n- effect: read\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sums := func() map[string]string {
		out := map[string]string{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && p != mine {
				b, _ := os.ReadFile(p)
				out[p] = string(b)
			}
			return nil
		})
		return out
	}
	before := sums()
	if len(before) < 18 {
		t.Fatalf("only %d sample files", len(before))
	}
	call := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, out, errs := call("lint", dir); code != exitOK {
		t.Errorf("lint: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := call("lint", "-v", dir); code != exitOK || strings.Count(errs, "not a replayable skill") < 17 {
		t.Errorf("lint -v: exit %d, listing %d skills passed over:\n%s", code, strings.Count(errs, "not a replayable skill"), errs)
	}
	if code, out, _ := call("fmt", "-l", dir); code != exitOK || strings.TrimSpace(out) != mine {
		t.Errorf("fmt -l: exit %d, listed %q; want only %s", code, out, mine)
	}
	if code, _, errs := call("fmt", "-w", dir); code != exitOK {
		t.Errorf("fmt -w: exit %d: %s", code, errs)
	}
	after := sums()
	for p, b := range before {
		if after[p] != b {
			t.Errorf("fmt -w changed %s", p)
		}
	}
	if b, _ := os.ReadFile(mine); !strings.Contains(string(b), "### Step 1 — Bookings\n- intent: List them\n- action:") {
		t.Errorf("the Reelier SKILL.md was not formatted:\n%s", b)
	}
	docx := filepath.Join(dir, "docx", "SKILL.md")
	for _, cmd := range [][]string{{"run", docx}, {"parse", docx}} {
		code, _, errs := call(cmd...)
		if code != exitUsage || !strings.Contains(errs, "is not a replayable skill") || strings.Contains(errs, "Malformed step header") {
			t.Errorf("%s: exit %d: %s", cmd[0], code, errs)
		}
	}
}
