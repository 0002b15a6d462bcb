package compile

import (
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// verifySel evaluates a selection the compiler induced against the
// recorded result, with the runtime's own evaluator, and reports whether
// it gives the value the agent used (want: a string's text, or a
// number's). holes gives the recorded value of each name a condition
// holds. A rule the replay would evaluate otherwise than the compiler
// reasoned is never written.
func verifySel(sel *ast.Selection, r *recentResult, holes map[string]string, want string) bool {
	s := *sel
	if len(sel.Where) > 0 {
		s.Where = make([]*ast.Condition, len(sel.Where))
		for i, c := range sel.Where {
			cc := *c
			if str, ok := c.Value.(*ast.String); ok && len(str.Holes) > 0 {
				v, ok := holes[str.Holes[0].Name]
				if !ok || len(str.Holes) != 1 {
					return false
				}
				cc.Value = &ast.String{Value: v}
			}
			s.Where[i] = &cc
		}
	}
	obs := &tool.Observation{Status: 200, Body: r.text}
	if len(r.doc.text) > 0 {
		obs.Structured = r.doc.text
	}
	v, found, err := replay.SelectionValue(obs, &s)
	if err != nil || !found {
		return false
	}
	switch v := v.(type) {
	case string:
		return v == want
	case jsondata.Number:
		x, ok1 := parseDecimal(string(v))
		y, ok2 := parseDecimal(want)
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	return false
}
