package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

var ruleUnboundVariable = &Rule{
	Name:            "unbound_variable",
	Title:           "A template variable is used before any step binds it",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: `A ` + "`{{name}}`" + ` hole in a step's arguments is filled from the binds of
the steps before it. If no earlier step binds the name, the replay stops at
that step with "Unbound template variable". This rule reports a hole when
no earlier step binds its name and either

- a name that is bound earlier (or documented as an input) is one or two
  edits away — most likely a typo, and the message asks "Did you mean …?";
  or
- the same step or a later one binds the name, so the steps are in the
  wrong order or the hole is in the wrong step.

` + "`{{today}}`" + ` and ` + "`{{today±Nd}}`" + ` are computed from the clock and never
need a bind. A name that no step binds anywhere and that is not close to
any other is taken to be an input passed with ` + "`--var`" + `; the
` + "`undocumented_input`" + ` rule checks that the Inputs line names it.`,
	FixDoc: `When a close name exists, the fix replaces the hole's name with it.`,
	Example: `---
name: orders
description: Look up the latest order
---

### Step 1 — List orders
- intent: Find the newest order
- action: http.get {"url": "https://shop.example.test/orders"}
- assert: status == 200
- bind: order_id = json.orders.0.id
- effect: read

### Step 2 — Fetch it
- intent: Read the order
- action: http.get {"url": "https://shop.example.test/orders/{{orderid}}"}
- assert: status == 200
- effect: read
`,
	Run: runUnboundVariable,
}

func runUnboundVariable(p *Pass) {
	for _, u := range p.dataflow().unresolved {
		h := u.hole
		switch {
		case u.suggestion != "":
			p.Report(ast.Diagnostic{
				Step:    u.step.Number,
				Range:   h.Range,
				Message: fmt.Sprintf("{{%s}} is not bound by any earlier step. Did you mean %q?", h.Name, u.suggestion),
				Fixes:   fix(fmt.Sprintf("Use {{%s}}", u.suggestion), replace(h.NameRange, u.suggestion)),
			})
		case u.later != nil:
			where := fmt.Sprintf("step %d binds it only later", u.later.step.Number)
			if u.later.step == u.step {
				where = "this step binds it, but binds take effect only after the step's action has run"
			}
			p.Report(ast.Diagnostic{
				Step:    u.step.Number,
				Range:   h.Range,
				Message: fmt.Sprintf("{{%s}} is used before any step binds it: %s", h.Name, where),
				Detail:  "A step sees the binds of the steps before it, never its own or later ones.",
			})
		}
	}
}
