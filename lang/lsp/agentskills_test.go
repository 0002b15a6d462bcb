package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"
)

// TestAgentSkillsQuiet: an ordinary Agent Skill (a SKILL.md with no Reelier
// steps) opens without a diagnostic; a SKILL.md with a Reelier step is
// checked as any skill.
func TestAgentSkillsQuiet(t *testing.T) {
	const samples = "../../../shared/agent-skills-samples"
	paths, _ := filepath.Glob(filepath.Join(samples, "*", "SKILL.md"))
	if len(paths) == 0 {
		t.Skipf("no Agent Skills samples at %s (the shared folder beside the project)", samples)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(p)
		if d := Diagnostics(NewDocument(uri.File(abs), 1, string(src))); len(d) != 0 {
			t.Errorf("%s: %d diagnostics, first %q", p, len(d), d[0].Message)
		}
	}
	broken := "---\nname: mine\ndescription: x\n---\n\n### Step 1 — Go\n- intent: Go\n- action: http.get {\"url\": \"https://api.example.test/\"}\n- effect: reed\n"
	if d := Diagnostics(NewDocument(uri.File("/skills/mine/SKILL.md"), 1, broken)); len(d) == 0 {
		t.Error("a Reelier SKILL.md with a bad effect got no diagnostic")
	}
}
