package ast_test

import (
	"slices"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
)

// TestStepHoles holds Step.Holes to the holes a step fills, in file order:
// the action's arguments, then the selection asserts' (where values, the
// compared value) and the selection binds'; a non-selection assert or
// bind adds none.
func TestStepHoles(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  []string
	}{
		{"none", "- intent: Get\n- action: get {\"a\": \"b\"}\n- assert: json.n == 1\n- effect: read\n", nil},
		{"action only", "- intent: Get\n- action: get {\"a\": \"{{x}}\", \"b\": [\"{{y}} {{today}}\"]}\n- effect: read\n", []string{"x", "y", "today"}},
		{"selections after the action", "- intent: Get\n- action: get {\"a\": \"{{x}}\"}\n" +
			"- assert: json.n == 1\n" +
			"- assert: first(json.items where name == \"{{w}}\") == \"{{v}}\"\n" +
			"- bind: id = json.id\n" +
			"- bind: pick = first(json.items where owner == \"{{o}}\").id\n" +
			"- effect: read\n", []string{"x", "w", "v", "o"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "---\nname: holes\ndescription: Holes of a step.\n---\n\n# Holes\n\n## Steps\n\n### Step 1 — One\n" + tt.lines
			skill, diags := grammar.Parse("t.skill.md", []byte(src))
			if diags.HasErrors() {
				t.Fatalf("parse: %v", diags)
			}
			if len(skill.Steps) != 1 {
				t.Fatalf("%d steps, want 1", len(skill.Steps))
			}
			var got []string
			for _, h := range skill.Steps[0].Holes() {
				got = append(got, h.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Holes() = %q, want %q", got, tt.want)
			}
		})
	}
}
