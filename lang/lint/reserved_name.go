package lint

import (
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

var ruleReservedName = &Rule{
	Name:            "reserved_name",
	Title:           "A bind name looks like a computed date variable",
	Category:        CategoryClarity,
	DefaultSeverity: ast.SeverityWarning,
	Doc: "`today`, `today-Nd` and `today+Nd` are reserved for the dates the runtime computes, and the " + `
parser rejects a bind that uses them. Names that only resemble them —
` + "`Today`, `TODAY`, `today_7d`, `today2`" + ` — are accepted, but a reader of
` + "`{{today_7d}}`" + ` will take it for a computed date, and a one-character slip
turns one into the other. Pick a name that says what the value is
(` + "`report_date`, `window_start`" + `).`,
	Example: `---
name: window
description: Read the reporting window
---

### Step 1 — Window
- intent: Read the reporting window
- action: http.get {"url": "https://api.example.test/window"}
- assert: status == 200
- bind: Today = json.start
- effect: read

### Step 2 — Report
- intent: Fetch the report
- action: http.get {"url": "https://api.example.test/report?from={{Today}}"}
- assert: status == 200
- effect: read
`,
	Run: runReservedName,
}

// resemblesReserved reports whether a name is not reserved but looks like
// `today` or `today±Nd`: `today` in any case, or `today` followed by more
// text that holds a digit.
func resemblesReserved(name string) bool {
	lower := strings.ToLower(name)
	rest, ok := strings.CutPrefix(lower, "today")
	if !ok || name == "today" {
		return false
	}
	return rest == "" || strings.ContainsAny(rest, "0123456789")
}

func runReservedName(p *Pass) {
	for _, b := range p.dataflow().binds {
		if resemblesReserved(b.name) {
			p.Reportf(b.step.Number, b.field.Expr.BoundNameRange(), "bind name %q looks like the computed date {{today…}}; choose a name that says what the value is", b.name)
		}
	}
}
