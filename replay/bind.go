package replay

import (
	"fmt"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// bind evaluates one bind expression.
func (e *evaluation) bind(b ast.Bind) {
	switch b := b.(type) {
	case *ast.JSONBind:
		root, ok := e.json()
		if !ok {
			return
		}
		v, found := Resolve(root, b.Path)
		if !found {
			e.fail(&Failure{
				Message:  fmt.Sprintf("bind %s = json.%s failed: path not found", b.Name, b.Path),
				Expr:     format.Bind(b),
				Expected: "a value at " + format.Path(b.Path),
				Observed: notFound,
			})
			return
		}
		e.binds = append(e.binds, binding{b.Name, v})
	case *ast.BodyMatchBind:
		re, err := jsregex.Compile(b.Pattern)
		if err != nil {
			e.fail(&Failure{Message: fmt.Sprintf("Invalid regex in bind: %v", err), Expr: format.Bind(b)})
			return
		}
		group, ok, err := jsregex.FirstGroup(re, e.obs.Body)
		switch {
		case err != nil:
			e.fail(&Failure{Message: fmt.Sprintf("%s: %v", format.Bind(b), err), Expr: format.Bind(b)})
		case !ok:
			e.fail(&Failure{
				Message:  fmt.Sprintf("bind %s = body match /%s/ failed: no capture-group match", b.Name, b.Pattern),
				Expr:     format.Bind(b),
				Expected: "a match of /" + b.Pattern + "/ with capture group 1",
				Observed: fmt.Sprintf("no such match in a body of %d bytes", len(e.obs.Body)),
			})
		default:
			e.binds = append(e.binds, binding{b.Name, group})
		}
	case *ast.SelectionBind:
		v, found, err := e.selectValue(b.Sel)
		switch {
		case err == errBadBody:
		case err != nil:
			e.fail(&Failure{Message: format.Bind(b) + ": " + err.Error(), Expr: format.Bind(b)})
		case !found:
			e.fail(&Failure{
				Message:  fmt.Sprintf("%s failed: the picked element has no %s", format.Bind(b), b.Sel.Field.String()),
				Expr:     format.Bind(b),
				Expected: "a value at ." + b.Sel.Field.String() + " in the picked element",
				Observed: notFound,
			})
		default:
			e.binds = append(e.binds, binding{b.Name, v})
		}
	default:
		e.fail(&Failure{Message: fmt.Sprintf("unsupported bind %T", b)})
	}
}
