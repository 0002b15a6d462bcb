package lint

import (
	"fmt"
	"strings"
	"testing"
)

// TestControlCharacterRule: every control, line-break or bidi character
// in a skill is a finding of control_character at its own line and
// column, whatever part of the file holds it; a tab, a CRLF line end and
// right-to-left letters are not.
func TestControlCharacterRule(t *testing.T) {
	d := onlyRule(t, "control_character")
	tests := []struct {
		name, src string
		want      []string // "line:col" of each finding, in order
	}{
		{"server command NEL", "---\nname: a\ndescription: d\n---\n\n## Servers\n\n- `m`: `npx -y x\u0085  yes: \"true\"`\n\n### Step 1 — A\n- intent: a\n- action: t {}\n- effect: read\n", []string{"8:17"}},
		{"title ESC and intent RLO", "---\nname: a\ndescription: d\n---\n\n### Step 1 — A\x1b[2K\n- intent: a\u202eb\n- action: t {}\n- effect: read\n", []string{"6:15", "7:12"}},
		{"frontmatter LS, PS and a lone CR", "---\nname: a\ndescription: d\u2028e\u2029f\rg\n---\n\n### Step 1 — A\n- intent: a\n- action: t {}\n- effect: read\n", []string{"3:15", "3:17", "3:19"}},
		{"C0, DEL, C1, isolates", "---\nname: a\ndescription: d\n---\n\n### Step 1 — A\n- intent: \x00\x07\x7f\u009b\u2066\u2069\n- action: t {}\n- effect: read\n", []string{"7:11", "7:12", "7:13", "7:14", "7:15", "7:16"}},
		{"tabs, CRLF and Hebrew", "---\r\nname: a\r\ndescription: d\r\n---\r\n\r\n### Step 1 — A\r\n- intent:\ta שלום\r\n- action: t {}\r\n- effect: read\r\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, dg := range d.Run(ParseFile("a.skill.md", []byte(tt.src))) {
				if dg.Code == "control_character" {
					got = append(got, fmt.Sprintf("%d:%d", dg.Range.Start.Line, dg.Range.Start.Column))
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("findings at %v, want %v", got, tt.want)
			}
		})
	}
}

// TestControlCharacterFix: deleting is offered only when the file without
// every such character parses, so Fix never has to refuse it.
func TestControlCharacterFix(t *testing.T) {
	d := onlyRule(t, "control_character")
	tests := []struct {
		name, src string
		fix       bool
	}{
		{"server line", "---\nname: a\ndescription: d\n---\n\n## Servers\n\n- `m`: `npx -y x\u0085`\n\n### Step 1 — A\n- intent: a\n- action: t {}\n- effect: read\n", true},
		{"title", "---\nname: a\ndescription: d\n---\n\n### Step 1 — A\x1b[2K\n- intent: a\n- action: t {}\n- effect: read\n", true},
		{"another parse error", "---\nname: a\ndescription: d\n---\n\n### Step 1 — A\x1b[2K\n- intent: a\n- action: t {\n- effect: read\n", false},
		{"deleting leaves a bad server line", "---\nname: a\ndescription: d\n---\n\n## Servers\n\n- `m`: `x`\x1bfoo\n\n### Step 1 — A\n- intent: a\n- action: t {}\n- effect: read\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseFile("a.skill.md", []byte(tt.src))
			n := 0
			for _, dg := range d.Run(f) {
				if dg.Code == "control_character" {
					n++
					if (len(dg.Fixes) > 0) != tt.fix {
						t.Errorf("fixes %v, want a fix: %v", dg.Fixes, tt.fix)
					}
				}
			}
			if n == 0 {
				t.Fatal("no finding")
			}
			res := d.Fix(f)
			for _, dg := range res.Diagnostics {
				if strings.Contains(dg.Message, "internal error") {
					t.Errorf("Fix refused a fix: %v", dg)
				}
			}
			if res.Changed() != tt.fix {
				t.Errorf("Fix changed the file: %v", res.Changed())
			}
		})
	}
}
