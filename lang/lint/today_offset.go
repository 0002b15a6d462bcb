package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

// maxTodayOffset is the largest day offset the runtime resolves.
const maxTodayOffset = 365

var ruleTodayOffset = &Rule{
	Name:            "today_offset",
	Title:           "A computed date's day offset is outside 1 to 365, or the date is malformed",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: "`{{today-Nd}}` and `{{today+Nd}}` resolve to the UTC date N days before or after the run, " + `
for N from 1 to 365. Any other offset stops the replay at that step, just
like an unbound variable. An offset of zero is written ` + "`{{today}}`" + `; an
offset of more than a year has no computed form, and the date has to be a
fixed literal or an input. Text that starts like a computed date and is not one
(` + "`{{today+3}}`" + `, ` + "`{{today - 7d}}`" + `) fails the step the same way.`,
	FixDoc:  "An offset of zero is replaced with `{{today}}`.",
	Example: exampleSkill("Bookings this week", `- action: list_bookings {"from": "{{today-0d}}", "to": "{{today+400d}}"}`),
	Run:     runTodayOffset,
}

func runTodayOffset(p *Pass) {
	for _, st := range p.Skill.Steps {
		if st.Action == nil {
			continue
		}
		for _, h := range ast.Holes(st.Action.Args) {
			if h.Kind == ast.HoleMalformedDate {
				p.Report(ast.Diagnostic{Step: st.Number, Range: h.Range,
					Message: fmt.Sprintf("%s is not a computed date: write {{today}}, {{today-Nd}} or {{today+Nd}} (N from 1 to %d); a replay fails this step", p.text(h.Range), maxTodayOffset)})
				continue
			}
			if h.Kind != ast.HoleTodayOffset || h.Days != 0 && h.Days >= -maxTodayOffset && h.Days <= maxTodayOffset {
				continue
			}
			d := ast.Diagnostic{
				Step:    st.Number,
				Range:   h.Range,
				Message: fmt.Sprintf("%s has an offset of %d days; only 1 to %d is supported", p.text(h.Range), abs(h.Days), maxTodayOffset),
			}
			if h.Days == 0 {
				d.Message = fmt.Sprintf("%s has an offset of 0 days; write {{today}}", p.text(h.Range))
				d.Fixes = fix("Use {{today}}", replace(h.NameRange, "today"))
			}
			p.Report(d)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// exampleSkill builds a one-step example skill around an action line, for
// rule documentation.
func exampleSkill(title, action string) string {
	return "---\nname: example\ndescription: " + title + "\n---\n\n### Step 1 — " + title +
		"\n- intent: " + title + "\n" + action + "\n- assert: status == 200\n- effect: read\n"
}
