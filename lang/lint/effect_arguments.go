package lint

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
)

var ruleEffectArguments = &Rule{
	Name:            "effect_arguments",
	Title:           "A step's effect is milder than its arguments say",
	Category:        CategorySafety,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `Some tools do different things depending on what they are sent: one tool lists,
creates or deletes by its ` + "`mode`" + `, and a commit with ` + "`amend: true`" + ` rewrites one that
may already be shared. The tool name alone then says too little, and a step
marked ` + "`read`" + ` or ` + "`idempotent-write`" + ` would run with ` + "`--allow-writes`" + ` — or unasked —
and delete or rewrite real data. The rule reads the step's top-level
arguments through the tables in SPEC.md §3 "Effect arguments":

- a string argument named as a mode (` + wordList(verbs.ModeKeys) + `, or a name with one
  of them as a word, such as ` + "`http_method`" + `) is
  read like a tool name: a destructive verb (` + "`delete`, `purge`, `send`" + `, …) needs
  ` + "`destructive`" + `, a write or unsafe-to-repeat verb (` + "`create`, `update`, `merge`" + `, …)
  at least ` + "`idempotent-write`" + `;
- a boolean flag set to ` + "`true`" + ` whose name has one of these words as a word
  needs ` + "`destructive`" + `: ` + wordList(verbs.Flags) + `.

A value with a template hole is not read (it is only known at replay), nor
is a flag set to false. The compiler reads the same arguments (and, from
the trace, arguments whose schema is an enum of verbs) and is never milder,
so a compiled skill does not trip this rule. A stronger effect is never
reported.`,
	FixDoc: "The fix raises the effect to the one the arguments imply.",
	Example: `---
name: tidy
description: Remove the old draft task
---

### Step 1 — Delete the draft
- intent: Delete the old draft
- action: edit_tasks {"mode": "delete", "id": "tsk_81fa20"}
- assert: status == 200
- effect: idempotent-write
`,
	Run: runEffectArguments,
}

// wordList writes words as a list in prose: "a, b or c", each in code.
func wordList(words []string) string {
	var b strings.Builder
	for i, w := range words {
		switch {
		case i == 0:
		case i == len(words)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString("`" + w + "`")
	}
	return b.String()
}

// argumentsEffect returns the least effect a step's top-level arguments
// imply and the argument that implies it ("mode \"delete\"", "force:
// true"); "" when they imply nothing the rule holds a step to. Of several,
// the first of the most severe wins.
func argumentsEffect(args ast.Value) (ast.Effect, string) {
	obj, ok := args.(*ast.Object)
	if !ok {
		return "", ""
	}
	var want ast.Effect
	var why string
	for _, m := range obj.Members {
		var e ast.Effect
		var w string
		switch v := m.Value.(type) {
		case *ast.Bool:
			if v.Value && verbs.FlagWord(m.Key) != "" {
				e, w = ast.EffectDestructive, fmt.Sprintf("%s: true", quoteMember(m.Key))
			}
		case *ast.String:
			if len(v.Holes) > 0 || !verbs.IsModeKey(m.Key) {
				continue
			}
			switch class, _ := verbs.Mode(v.Value).Floor(); class {
			case verbs.Destructive:
				e = ast.EffectDestructive
			case verbs.Write:
				e = ast.EffectIdempotentWrite
			}
			w = fmt.Sprintf("%s %q", quoteMember(m.Key), v.Value)
		}
		if e != "" && effectRank(e) > effectRank(want) {
			want, why = e, w
		}
	}
	return want, why
}

// quoteMember shows an argument name as written when it is a plain word,
// quoted otherwise.
func quoteMember(k string) string {
	if !words.IsWord(k) {
		return fmt.Sprintf("%q", k)
	}
	return k
}

func runEffectArguments(p *Pass) {
	for _, st := range p.Skill.Steps {
		if st.Action == nil || st.Effect == nil || st.Action.Args == nil {
			continue
		}
		want, why := argumentsEffect(st.Action.Args)
		if want == "" || effectRank(st.Effect.Value) >= effectRank(want) {
			continue
		}
		p.Report(ast.Diagnostic{
			Step:    st.Number,
			Range:   st.Effect.ValueRange,
			Message: fmt.Sprintf("effect %s is milder than the arguments imply: %s on %s needs %s", st.Effect.Value, why, st.Action.Tool, want),
			Fixes:   fix("Mark the step "+string(want), replace(st.Effect.ValueRange, string(want))),
		})
	}
}
