package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/tool/jsondata"
)

var ruleNumericCompare = &Rule{
	Name:            "numeric_compare",
	Title:           "An ordering comparison against something that is not a number",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: "`json.<path> > <value>` (and `<`, `>=`, `<=`) is true only when both sides are " + `
numbers. Against a string, a boolean or null it is never true, so the
assert always fails — with a message that does not say why. Compare
numbers with numbers, or use ` + "`==`/`!=`" + ` or ` + "`matches`" + ` for strings. The same
holds for a selection's value and for its ` + "`where`" + ` conditions, which then
keep no element.`,
	FixDoc: "When the right-hand side is a quoted number (`\"5\"`), the fix removes the quotes.",
	Example: `---
name: stock
description: Check stock levels
---

### Step 1 — Stock
- intent: Check that the item is in stock
- action: http.get {"url": "https://shop.example.test/items/42"}
- assert: json.stock > "0"
- assert: json.updated >= "2026-01-01"
- effect: read
`,
	Run: runNumericCompare,
}

func runNumericCompare(p *Pass) {
	for _, st := range p.Skill.Steps {
		for _, af := range st.Asserts {
			switch a := af.Expr.(type) {
			case *ast.JSONCompareAssert:
				checkNumericCompare(p, st.Number, format.Path(a.Path), a.Op, a.Value)
			case *ast.SelectionAssert:
				selectionNumericCompares(p, st.Number, a.Sel)
				if a.Kind == ast.SelCompare {
					checkNumericCompare(p, st.Number, format.Selection(a.Sel), a.Op, a.Value)
				}
			}
		}
		for _, bf := range st.Binds {
			if sb, ok := bf.Expr.(*ast.SelectionBind); ok {
				selectionNumericCompares(p, st.Number, sb.Sel)
			}
		}
	}
}

// selectionNumericCompares checks the ordering comparisons of a
// selection's conditions: against a non-number they keep no element.
func selectionNumericCompares(p *Pass, step int, s *ast.Selection) {
	for _, c := range s.Where {
		switch op := ast.Op(c.Op); op {
		case ast.OpGt, ast.OpLt, ast.OpGe, ast.OpLe:
			checkNumericCompare(p, step, c.Key.String(), op, c.Value)
		}
	}
}

// checkNumericCompare reports `<subject> <op> <value>` when op orders and
// the value is not a number.
func checkNumericCompare(p *Pass, step int, subject string, op ast.Op, v ast.Value) {
	if op == ast.OpEq || op == ast.OpNe {
		return
	}
	if _, isNum := v.(*ast.Number); isNum {
		return
	}
	d := ast.Diagnostic{
		Step:    step,
		Range:   v.Span(),
		Message: fmt.Sprintf("%s %s %s compares against a non-number, so it is never true", subject, op, format.Value(v)),
	}
	if s, ok := v.(*ast.String); ok && jsondata.IsNumber(s.Value) {
		d.Fixes = fix("Compare with the number "+s.Value, replace(s.Range, s.Value))
	}
	p.Report(d)
}
