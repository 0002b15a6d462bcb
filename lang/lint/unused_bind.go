package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

var ruleUnusedBind = &Rule{
	Name:            "unused_bind",
	Title:           "A bind's value is never used by a later step",
	Category:        CategoryVerification,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A bind exists to carry a value from one step's response into a later
step's arguments. A bind that no later step reads (or that is bound again
before anything reads it) carries nothing; often a later step was meant to
use it and uses a literal instead, or it is left over from an edit.

A bind still fails its step when the value is missing, so it does check
something. If that check is what you want, say so with an assert such as
` + "`json.<path> is set`" + `, which reads as a check.`,
	Example: `---
name: orders
description: List orders
---

### Step 1 — List orders
- intent: List the orders
- action: http.get {"url": "https://shop.example.test/orders"}
- assert: status == 200
- bind: first_id = json.orders.0.id
- effect: read
`,
	Run: runUnusedBind,
}

func runUnusedBind(p *Pass) {
	for _, b := range p.dataflow().binds {
		if b.used {
			continue
		}
		msg := fmt.Sprintf("%s is bound but no later step uses {{%s}}", b.name, b.name)
		if r := b.replacedBy; r != nil {
			msg = fmt.Sprintf("%s is bound again in step %d before any step uses it", b.name, r.step.Number)
		}
		p.Report(ast.Diagnostic{Step: b.step.Number, Range: b.field.Expr.BoundNameRange(), Message: msg})
	}
}
