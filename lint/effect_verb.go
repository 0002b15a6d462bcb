package lint

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/ast"
)

var ruleEffectVerb = &Rule{
	Name:            "effect_verb",
	Title:           "A step's effect is milder than its tool's verb says",
	Category:        CategorySafety,
	DefaultSeverity: ast.SeverityError,
	Doc: `The effect decides what a replay may do unasked: ` + "`read`" + ` steps always run,
` + "`idempotent-write`" + ` steps need ` + "`--allow-writes`" + `, ` + "`destructive`" + ` steps need ` + "`--yes`" + `.
A step whose tool deletes, cancels, charges or sends but which is marked
` + "`read`" + ` would run on every replay without anyone being asked. The rule reads
the verb at the start of the tool's last name segment (` + "`github.delete_issue`" + `,
` + "`mcp__stripe__refund_charge`" + `, ` + "`deleteIssue`" + `) and reports an effect milder
than the verb implies:

- destructive verbs (delete, remove, destroy, drop, purge, cancel, revoke,
  charge, pay, refund, send, transfer, …) need ` + "`destructive`" + `;
- write verbs (create, update, set, add, put, patch, close, assign, …)
  need at least ` + "`idempotent-write`" + `;
- for the builtin HTTP tools, ` + "`http.delete`" + ` is destructive and ` + "`http.put`/`http.patch`" + `
  write; ` + "`http.post`" + ` is often a search, so it is left to the author.

A stronger effect than the verb suggests is never reported: caution is not
a contradiction.`,
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

// Verbs by the least effect they imply.
var (
	destructiveVerbs = wordSet("delete del remove rm destroy drop purge erase wipe truncate cancel revoke terminate kill charge pay refund send transfer withdraw void post publish notify email")
	writeVerbs       = wordSet("create add insert update upsert set put patch edit modify write save store merge assign label tag rename move copy upload import enable disable start stop restart close reopen lock unlock approve reject comment reply invite subscribe unsubscribe register book reserve schedule submit apply commit push deploy release archive")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
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

// impliedEffect returns the least effect a tool's verb implies, and the
// verb; "" when the name says nothing.
func impliedEffect(tool string) (ast.Effect, string) {
	switch tool {
	case "http.delete":
		return ast.EffectDestructive, "delete"
	case "http.put", "http.patch":
		return ast.EffectIdempotentWrite, strings.TrimPrefix(tool, "http.")
	}
	if isHTTPTool(tool) {
		return "", ""
	}
	words := splitToolName(lastSegment(tool))
	if len(words) == 0 {
		return "", ""
	}
	switch v := words[0]; {
	case destructiveVerbs[v]:
		return ast.EffectDestructive, v
	case writeVerbs[v]:
		return ast.EffectIdempotentWrite, v
	}
	return "", ""
}

// lastSegment returns the part of a tool name after its last "." or "__".
func lastSegment(tool string) string {
	if i := strings.LastIndex(tool, "__"); i >= 0 {
		tool = tool[i+2:]
	}
	if i := strings.LastIndexByte(tool, '.'); i >= 0 {
		tool = tool[i+1:]
	}
	return tool
}

// splitToolName cuts a name into lower-case words at '_', '-' and
// lower-to-upper case changes: deleteIssue and delete-issue give [delete issue].
func splitToolName(s string) []string {
	var words []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i < len(s) && s[i] != '_' && s[i] != '-' && !(s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z') {
			continue
		}
		if w := strings.Trim(s[start:i], "_-"); w != "" {
			words = append(words, strings.ToLower(w))
		}
		start = i
	}
	return words
}

func runEffectVerb(p *Pass) {
	for _, st := range p.Skill.Steps {
		if st.Action == nil || st.Effect == nil {
			continue
		}
		want, verb := impliedEffect(st.Action.Tool)
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
