package astdump

import (
	"testing"

	"github.com/reelier/reelier/lang/grammar"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, src string
		ok        bool
	}{
		{"not a skill", "just text\n", false},
		{"no steps", "---\nname: x\ndescription: y\n---\n", false},
		{"one step", "---\nname: x\ndescription: y\n---\n\n### Step 1 — List\n- intent: List things\n- action: http.get {\"url\": \"https://api.example.test/items\"}\n- assert: status == 200\n- bind: first = json.items.0.id\n- effect: read\n", true},
	}
	for _, tt := range tests {
		skill, diags := grammar.Parse("x.skill.md", []byte(tt.src))
		res := Parse(skill, diags)
		if res.OK != tt.ok || (res.Skill != nil) != tt.ok || (len(res.Errors) > 0) == tt.ok {
			t.Errorf("%s: %+v (diags %v)", tt.name, res, diags)
		}
		if res.Skill != nil && (len(res.Skill.Steps) != 1 || res.Skill.Steps[0].Tool != "http.get" || len(res.Skill.Steps[0].Binds) != 1) {
			t.Errorf("%s: summary %+v", tt.name, res.Skill)
		}
		for _, e := range res.Errors {
			if e.Line < 1 || e.Column < 1 || e.Code == "" {
				t.Errorf("%s: error %+v has no position or code", tt.name, e)
			}
		}
	}
}
