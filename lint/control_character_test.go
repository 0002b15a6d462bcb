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
