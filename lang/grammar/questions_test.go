package grammar

import (
	"fmt"
	"strings"
	"testing"
)

const questionsSkill = `---
name: q
description: open questions
---

## Steps

### Step 1 — List
- intent: list
- action: list_items {}
- effect: read

### Step 2 — Read
- intent: read
- action: get_item {"id": 1}
- effect: read

## Open questions

- Step 1 (list_items): the bind reads a position in an array — is the order guaranteed?
- [x] Step 2 (get_item): resolved, checked off
- [ ] Step 2 (get_item): "1" is a literal; is it fixed?
  a continuation of the bullet above
* The trace has no recording date.
- Step 12: names a step that is not there

` + "```" + `
- a bullet inside a fence is not a question
` + "```" + `

## Changelog

- 2026-07-20 — compiled from t.jsonl (2 calls, 2 steps)
`

// TestOpenQuestions reads the unresolved questions, their steps and lines.
func TestOpenQuestions(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line step text"
	}{
		{name: "compiled", src: questionsSkill, want: []string{
			`20 1 Step 1 (list_items): the bind reads a position in an array — is the order guaranteed?`,
			`22 2 Step 2 (get_item): "1" is a literal; is it fixed?`,
			`24 0 The trace has no recording date.`,
			`25 12 Step 12: names a step that is not there`,
		}},
		{name: "none", src: strings.Replace(questionsSkill, questionsSkill[strings.Index(questionsSkill, "- Step 1 (list"):strings.Index(questionsSkill, "## Changelog")], "- (none)\n\n", 1)},
		{name: "no section", src: strings.Replace(questionsSkill, "## Open questions", "## Notes", 1)},
		{name: "crlf", src: strings.ReplaceAll(questionsSkill, "\n", "\r\n"), want: []string{
			`20 1 Step 1 (list_items): the bind reads a position in an array — is the order guaranteed?`,
			`22 2 Step 2 (get_item): "1" is a literal; is it fixed?`,
			`24 0 The trace has no recording date.`,
			`25 12 Step 12: names a step that is not there`,
		}},
		{name: "the heading in any case", src: strings.Replace(questionsSkill, "## Open questions", "## OPEN QUESTIONS", 1), want: []string{
			`20 1 Step 1 (list_items): the bind reads a position in an array — is the order guaranteed?`,
			`22 2 Step 2 (get_item): "1" is a literal; is it fixed?`,
			`24 0 The trace has no recording date.`,
			`25 12 Step 12: names a step that is not there`,
		}},
		{name: "section at the end of the file", src: questionsSkill[:strings.Index(questionsSkill, "\n- [x]")+1], want: []string{
			`20 1 Step 1 (list_items): the bind reads a position in an array — is the order guaranteed?`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			skill, diags := Parse("q.skill.md", []byte(tc.src))
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var got []string
			for _, q := range OpenQuestions(skill) {
				got = append(got, fmt.Sprintf("%d %d %s", q.Range.Start.Line, q.Step, q.Text))
				// The range covers the bullet as written.
				at := tc.src[q.Range.Start.Offset:q.Range.End.Offset]
				if !strings.HasSuffix(at, q.Text) || !strings.ContainsAny(at[:1], "-*+") {
					t.Errorf("range of %q covers %q", q.Text, at)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// FuzzOpenQuestions: on any skill the parser accepts, every question's
// range lies on one line of the source and covers a bullet holding its
// text.
func FuzzOpenQuestions(f *testing.F) {
	f.Add(questionsSkill)
	f.Add(strings.ReplaceAll(questionsSkill, "\n", "\r\n"))
	f.Add("### Step 1 — a\n- action: x {}\n\n## Open questions\n- Step 1: q\n")
	f.Fuzz(func(t *testing.T, src string) {
		skill, _ := Parse("f.skill.md", []byte(src))
		if skill == nil {
			return
		}
		for _, q := range OpenQuestions(skill) {
			s, e := int(q.Range.Start.Offset), int(q.Range.End.Offset)
			if s < 0 || e > len(src) || s > e {
				t.Fatalf("range %d..%d outside a source of %d bytes", s, e, len(src))
			}
			at := src[s:e]
			if strings.ContainsRune(at, '\n') || !strings.HasSuffix(at, q.Text) || q.Text == "" {
				t.Fatalf("range %q does not hold the question %q", at, q.Text)
			}
		}
	})
}
