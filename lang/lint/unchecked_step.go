package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

var ruleUncheckedStep = &Rule{
	Name:            "unchecked_step",
	Title:           "A step has no assert, so its outcome proves nothing",
	Category:        CategoryVerification,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A step without ` + "`assert`" + ` lines is recorded as "unchecked": it ran, and nothing
says whether it did what the intent claims. A replay that is all unchecked
steps passes even when every call returned an error page. Give each step at
least one assert about the response — a status code, a field that must be
set, a value that must match.`,
	FixDoc: "For the builtin HTTP tools the fix adds `- assert: status == 200` after the action.",
	Example: `---
name: ping
description: Ping the service
---

### Step 1 — Ping
- intent: Check the service answers
- action: http.get {"url": "https://api.example.test/ping"}
- effect: read
`,
	Run: runUncheckedStep,
}

func runUncheckedStep(p *Pass) {
	for _, st := range p.Skill.Steps {
		if len(st.Asserts) > 0 || st.Action == nil {
			continue
		}
		d := ast.Diagnostic{
			Step:    st.Number,
			Range:   st.HeaderRange,
			Message: fmt.Sprintf("step %d has no assert; its outcome will be \"unchecked\"", st.Number),
		}
		if isHTTPTool(st.Action.Tool) {
			end := p.lineEnd(int(st.Action.Range.End.Offset))
			d.Fixes = fix("Assert status == 200", p.insertAt(end, p.eol()+"- assert: status == 200"))
		}
		p.Report(d)
	}
}
