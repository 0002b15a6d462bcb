package lint

import (
	"strings"
	"testing"
)

// TestAgentSkillFolder: a SKILL.md's name must be its folder's.
func TestAgentSkillFolder(t *testing.T) {
	src := "---\nname: weekly-bookings\ndescription: Lists bookings\n---\n\n### Step 1 — Go\n- intent: Go\n- action: http.get {\"url\": \"https://api.example.test/\"}\n- assert: status == 200\n- effect: read\n"
	for path, want := range map[string]bool{
		"skills/weekly-bookings/SKILL.md": false,
		"skills/bookings/SKILL.md":        true,
		"weekly.skill.md":                 false,
	} {
		f := ParseFile(path, []byte(src))
		d, err := New(Config{Enable: []string{"agent_skill"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, diag := range d.Run(f) {
			got = append(got, diag.Message)
		}
		found := false
		for _, m := range got {
			found = found || strings.Contains(m, "differs from the skill's folder")
		}
		if found != want {
			t.Errorf("%s: folder diagnostic %v, want %v (%q)", path, found, want, got)
		}
	}
}
