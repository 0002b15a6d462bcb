package lint

import (
	"strconv"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

var ruleDriftIndex = &Rule{
	Name:            "drift_index",
	Title:           "A json path picks an array element by a position other than the first",
	Category:        CategoryDrift,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A path such as ` + "`json.items.3.id`" + ` names whatever happens to be fourth in the
list the day the skill runs. Lists grow, shrink and re-sort; on another day
the same path reads a different item, and the step either fails or —
worse — passes on the wrong data. Index ` + "`0`" + ` is accepted as the common
"first result" idiom (pair it with a filter or sort in the request, and an
assert on the length).

Instead of a position, narrow the request so that the item you want comes
first (filter by a stable key, sort explicitly), or assert on the whole
array (` + "`json.items length > 3`" + `).`,
	Example: `---
name: third
description: Read the third order
---

### Step 1 — Orders
- intent: Read the third order
- action: http.get {"url": "https://shop.example.test/orders"}
- assert: json.orders.2.status == "paid"
- bind: order_id = json.orders.2.id
- effect: read

### Step 2 — Order
- intent: Fetch it
- action: http.get {"url": "https://shop.example.test/orders/{{order_id}}"}
- assert: status == 200
- effect: read
`,
	Run: runDriftIndex,
}

func runDriftIndex(p *Pass) {
	for _, st := range p.Skill.Steps {
		for _, af := range st.Asserts {
			if path := ast.AssertPath(af.Expr); path != nil {
				checkIndexes(p, st.Number, *path)
			}
		}
		for _, bf := range st.Binds {
			if b, ok := bf.Expr.(*ast.JSONBind); ok {
				checkIndexes(p, st.Number, b.Path)
			}
		}
	}
}

// checkIndexes builds its message without fmt: a skill of many steps
// gets one for each (#20).
func checkIndexes(p *Pass, step int, path ast.Path) {
	for _, e := range path.Elements {
		if e.Index > 0 {
			msg := format.Path(path) + " picks element " + strconv.Itoa(e.Index) + " of an array by position; it reads a different item when the list changes"
			p.Report(ast.Diagnostic{Step: step, Range: e.Range, Message: msg})
		}
	}
}
