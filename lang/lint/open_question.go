package lint

import (
	"fmt"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

var ruleOpenQuestion = &Rule{
	Name:            "open_question",
	Title:           "The compiler left a question about a step unanswered",
	Category:        CategoryVerification,
	DefaultSeverity: ast.SeverityInfo,
	Doc: "`reelier compile` writes what it would not guess under `## Open questions`: a\n" +
		"position in an array it could not explain, a literal an earlier result also\n" +
		"held, an effect nothing classified. A replay of the step passes or fails on\n" +
		"what it checks; it cannot vouch for what the question asks. Each unresolved\n" +
		"question is reported at the step it names (a question about the whole skill,\n" +
		"at its own line). Answer it in the step — bind by a rule, write a hole, set\n" +
		"the effect — then delete its bullet or check it off (`- [x] …`). Receipts\n" +
		"count the questions still open, and `reelier run --fail-on-open-questions`\n" +
		"fails a run while any is.",
	Example: `---
name: latest-report
description: Summarise the newest report
---

### Step 1 — List the reports
- intent: List the reports
- action: list_reports {}
- assert: json.reports is array
- bind: report = json.reports.0.name
- effect: read

### Step 2 — Read it
- intent: Read the newest report
- action: read_report {"name": "{{report}}"}
- assert: json.text is string
- effect: read

## Open questions

- Step 1 (list_reports): the bind report reads json.reports.0.name, a position in an array; is the newest report always first?
- [x] Step 2 (read_report): answered, checked off
`,
	Run: runOpenQuestion,
}

// maxQuestionText bounds the question quoted in a finding.
const maxQuestionText = 200

func runOpenQuestion(p *Pass) {
	steps := make(map[int]*ast.Step, len(p.Skill.Steps))
	for _, st := range p.Skill.Steps {
		steps[st.Number] = st
	}
	for _, q := range grammar.OpenQuestions(p.Skill) {
		text := q.Text
		if len(text) > maxQuestionText {
			cut := maxQuestionText
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + "…"
		}
		line := q.Range.Start.Line
		if st := steps[q.Step]; st != nil && q.Step > 0 {
			p.Reportf(st.Number, st.HeaderRange, "an open question the compiler could not answer (line %d): %s", line, text)
			continue
		}
		p.Report(ast.Diagnostic{Range: q.Range, Message: fmt.Sprintf("an open question the compiler could not answer: %s", text)})
	}
}
