package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

var ruleShadowedBind = &Rule{
	Name:            "shadowed_bind",
	Title:           "A bind reuses a name an earlier bind or an input already holds",
	Category:        CategoryClarity,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `When two binds share a name, every ` + "`{{name}}`" + ` after the second one
silently gets the second value, and a reader who finds the first bind
thinks otherwise. The same holds for a bind that reuses the name of a
documented input: from that step on, the ` + "`--var`" + ` value is gone. Give
each value its own name (` + "`first_page_cursor`, `second_page_cursor`" + `).`,
	Example: `---
name: pages
description: Walk two pages
---

### Step 1 — Page one
- intent: Read the first page
- action: http.get {"url": "https://api.example.test/items"}
- assert: status == 200
- bind: cursor = json.next
- effect: read

### Step 2 — Page two
- intent: Read the second page
- action: http.get {"url": "https://api.example.test/items?after={{cursor}}"}
- assert: status == 200
- bind: cursor = json.next
- effect: read
`,
	Run: runShadowedBind,
}

func runShadowedBind(p *Pass) {
	f := p.dataflow()
	for _, b := range f.binds {
		var msg string
		switch {
		case b.shadows != nil && b.shadows.step == b.step:
			msg = fmt.Sprintf("%s is bound twice in step %d; the second bind wins", b.name, b.step.Number)
		case b.shadows != nil:
			msg = fmt.Sprintf("%s was already bound in step %d; from here on {{%s}} is this value", b.name, b.shadows.step.Number, b.name)
		case f.inputs.vars[b.name]:
			msg = fmt.Sprintf("%s is a documented input; this bind replaces its --var value from here on", b.name)
		default:
			continue
		}
		p.Report(ast.Diagnostic{Step: b.step.Number, Range: b.field.Expr.BoundNameRange(), Message: msg})
	}
}
