package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

var rulePositionalPick = &Rule{
	Name:            "positional_pick",
	Title:           "A value picked by position only feeds a step that writes or deletes",
	Category:        CategoryDrift,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A selection such as ` + "`first(json.items)`" + ` or ` + "`last(lines)`" + ` with neither
` + "`where`" + ` nor ` + "`by`" + ` picks an element by where it sits in the result, not by
why the step wants it. When the result is re-sorted, grows, or already
holds other elements, the pick silently becomes another element. That is
only an annoyance while the value is read; once it fills a hole of a step
whose effect is ` + "`idempotent-write`" + ` or ` + "`destructive`" + `, the replay writes to or
deletes the wrong thing and still passes.

This rule reports such a bind at its selection when a later step with a
writing or destructive effect uses the bound name (before another bind
replaces it). Say what makes the element the right one: keep elements by a
rule (` + "`first(json.items where name == \"{{customer}}\")`" + `), demand exactly one
(` + "`only(…)`" + `), or order them (` + "`max(json.items by created as date)`" + `).`,
	Example: `---
name: close-ticket
description: Close the ticket the search finds
---

### Step 1 — Find the ticket
- intent: Search the open tickets for the customer's report
- action: tickets.search {"q": "printer on fire", "state": "open"}
- assert: status == 200
- bind: ticket = first(json.results).id
- effect: read

### Step 2 — Close it
- intent: Close the ticket as resolved
- action: tickets.close {"id": "{{ticket}}"}
- assert: status == 200
- effect: destructive
`,
	Run: runPositionalPick,
}

// positional reports whether a selection picks by position only: first
// or last with no condition and no ordering.
func positional(s *ast.Selection) bool {
	return (s.Pick == ast.PickFirst || s.Pick == ast.PickLast) && len(s.Where) == 0 && !s.HasBy
}

func runPositionalPick(p *Pass) {
	live := map[string]*ast.SelectionBind{}
	bindStep := map[*ast.SelectionBind]int{}
	reported := map[*ast.SelectionBind]bool{}
	for _, st := range p.Skill.Steps {
		if e := st.EffectValue(); st.Action != nil && (e == ast.EffectIdempotentWrite || e == ast.EffectDestructive) {
			for _, h := range ast.Holes(st.Action.Args) {
				b := live[h.Name]
				if h.Kind != ast.HoleVar || b == nil || reported[b] {
					continue
				}
				reported[b] = true
				p.Report(ast.Diagnostic{
					Step:  bindStep[b],
					Range: b.Sel.Range,
					Message: fmt.Sprintf("%s = %s(…) picks by position only, and {{%s}} feeds step %d (%s) at line %d: if the result is re-sorted or grows, step %d acts on another element",
						b.Name, b.Sel.Pick, b.Name, st.Number, e, h.Range.Start.Line, st.Number),
					Detail: "Keep the element by a rule (where …), demand exactly one (only), or order by a field (max/min … by …).",
				})
			}
		}
		for _, bf := range st.Binds {
			name := bf.Expr.BoundName()
			sb, ok := bf.Expr.(*ast.SelectionBind)
			if ok && positional(sb.Sel) {
				live[name], bindStep[sb] = sb, st.Number
			} else {
				delete(live, name)
			}
		}
	}
}
