package lint

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
)

var ruleEffectVerb = &Rule{
	Name:            "effect_verb",
	Title:           "A step's effect is milder than its tool's verb says",
	Category:        CategorySafety,
	DefaultSeverity: ast.SeverityError,
	Doc: `The effect decides what a replay may do unasked: ` + "`read`" + ` steps always run,
` + "`idempotent-write`" + ` steps need ` + "`--allow-writes`" + `, ` + "`destructive`" + ` steps need ` + "`--yes`" + `.
A step whose tool deletes, cancels, charges or sends but which is marked
` + "`read`" + ` would run on every replay without anyone being asked. The rule cuts
the tool name into clauses, as the compiler does (namespace segments such as
` + "`github.`" + ` and ` + "`mcp__stripe__`" + `, and parts joined by and, or, then), takes the
verb that leads each clause (` + "`github.delete_issue`" + `, ` + "`mcp__stripe__refundCharge`" + `,
` + "`get_or_delete_draft`" + `) and reports an effect milder than the most severe of
them implies. The verbs are the table in SPEC.md §3 "Effect verbs":

- destructive verbs (delete, remove, destroy, drop, purge, cancel, revoke,
  charge, pay, refund, send, transfer, post, publish, deploy, …) need
  ` + "`destructive`" + `;
- write verbs (create, update, set, add, put, patch, close, assign, …) and
  unsafe-to-repeat verbs (merge, approve, comment, reply, start, stop,
  replace, …) need at least ` + "`idempotent-write`" + ` (the compiler makes the latter
  destructive unless the server declares ` + "`idempotentHint: true`" + `);
- the builtin HTTP tools follow the same table: ` + "`http.delete`" + ` and ` + "`http.post`" + `
  are destructive (a POST is not safe to repeat unless the author says so,
  and the runtime treats it that way too), ` + "`http.put`/`http.patch`" + ` write.

A verb later in a clause (` + "`get_refund`" + `, ` + "`fetch_delete_user`" + `) is not held against
a hand-written step, since it is as often a noun; the compiler counts it
anyway, so a compiled skill is always at least as careful as this rule
asks, and never trips it. A stronger effect than the verb suggests is never
reported: caution is not a contradiction.`,
	FixDoc: "The fix raises the effect to the class the verb implies.",
	Example: `---
name: cleanup
description: Delete the test issue
---

### Step 1 — Delete
- intent: Remove the test issue
- action: github.delete_issue {"repo": "acme/shop", "number": 7}
- assert: status == 204
- effect: read
`,
	Run: runEffectVerb,
}

// effectRank orders effects from harmless to irreversible.
func effectRank(e ast.Effect) int {
	for i, v := range ast.Effects {
		if v == e {
			return i
		}
	}
	return -1
}

// impliedEffect returns the least effect a tool's name implies, and the
// verb that implies it; "" when the name says nothing the rule holds a
// step to. The table is the compiler's (lang/verbs).
func impliedEffect(tool string) (ast.Effect, string) {
	switch class, verb := verbs.Scan(tool).Floor(); class {
	case verbs.Destructive:
		return ast.EffectDestructive, verb
	case verbs.Write:
		return ast.EffectIdempotentWrite, verb
	}
	return "", ""
}

func runEffectVerb(p *Pass) {
	// A skill calls a few tools many times: each name is read once.
	type implied struct {
		want ast.Effect
		verb string
	}
	seen := map[string]implied{}
	for _, st := range p.Skill.Steps {
		if st.Action == nil || st.Effect == nil {
			continue
		}
		im, ok := seen[st.Action.Tool]
		if !ok {
			im.want, im.verb = impliedEffect(st.Action.Tool)
			seen[st.Action.Tool] = im
		}
		want, verb := im.want, im.verb
		if want == "" || effectRank(st.Effect.Value) >= effectRank(want) {
			continue
		}
		p.Report(ast.Diagnostic{
			Step:    st.Number,
			Range:   st.Effect.ValueRange,
			Message: fmt.Sprintf("effect %s contradicts %s, whose verb %q implies %s", st.Effect.Value, st.Action.Tool, verb, want),
			Fixes:   fix("Mark the step "+string(want), replace(st.Effect.ValueRange, string(want))),
		})
	}
}
