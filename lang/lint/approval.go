package lint

import (
	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
)

const approvalExampleHead = `---
name: notes
description: Add a note
metadata:
  reelier-approvals: |-
    1 sha256:2f0d7ed5a5b9a3c3e1c6c0f0f4a1f3c5b7e9d1a3c5e7f9b1d3f5a7c9e1b3d5f7 tool=9305910f args=0badc0de effect=38f74069
`

// approvalExampleStep is the end of both approval rules' examples: the
// frontmatter's close and the one step the approval lines are about.
const approvalExampleStep = `---

### Step 1 — Add
- intent: Add a note
- action: create_entities {"entities": [{"name": "ada", "entityType": "person"}]}
- effect: idempotent-write
`

var ruleApprovalStale = &Rule{
	Name:            "approval_stale",
	Title:           "A step changed after it was approved",
	Category:        CategorySafety,
	DefaultSeverity: ast.SeverityError,
	Doc: "`reelier approve` keeps, under `metadata: reelier-approvals`, a digest of each approved step's" + `
tool, server (the Servers entry listing its tool), argument template and
effect. Once a skill keeps approvals, ` + "`reelier run`" + ` runs such a step only
while its digest matches, even with ` + "`--allow-writes`" + ` or ` + "`--yes`" + `: a step
edited after review fails closed. The rule reports the step whose digest
no longer matches, naming what changed where the approval line says
(` + "`tool=`, `server=`, `args=`, `effect=`" + `), and a write step
(idempotent-write, destructive) that has no approval in a skill that
keeps some, which a replay refuses too. Review the step, then run
` + "`reelier approve FILE --step N`" + `.`,
	Example: approvalExampleHead + approvalExampleStep,
	Run:     runApprovalStale,
}

func runApprovalStale(p *Pass) {
	c := approval.Check(p.Skill)
	if !c.Present() {
		return
	}
	for _, sc := range c.Steps {
		st := sc.Step
		at := st.HeaderRange
		if st.Action != nil {
			at = st.Action.Range
		}
		switch {
		case sc.Status == approval.Stale:
			p.Reportf(st.Number, at, "%s", sc.Message())
		case sc.Status == approval.None && approval.IsWrite(st.EffectValue()):
			p.Reportf(st.Number, at, "a write step (effect: %s) without an approval, in a skill that keeps approvals: a replay refuses it; review it and run reelier approve --step %d", st.EffectValue(), st.Number)
		}
	}
}

var ruleApprovalUnknownStep = &Rule{
	Name:            "approval_unknown_step",
	Title:           "An approval names no step, or does not read",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: "Each line of `metadata: reelier-approvals` is a step number, its `sha256:` digest and the" + `
optional short digests of its parts. A line that does not read makes
` + "`reelier run`" + ` refuse the skill (exit 2) at that line; a line for a step the skill
does not have (one deleted or renumbered since) approves nothing. Run
` + "`reelier approve`" + ` again: it drops the approvals of steps that are gone.`,
	Example: `---
name: notes
description: Add a note
metadata:
  reelier-approvals: 4 sha256:2f0d7ed5a5b9a3c3e1c6c0f0f4a1f3c5b7e9d1a3c5e7f9b1d3f5a7c9e1b3d5f7
` + approvalExampleStep,
	Run: runApprovalUnknownStep,
}

func runApprovalUnknownStep(p *Pass) {
	for _, pr := range approval.Check(p.Skill).Problems {
		msg := pr.Msg
		if pr.Code == "syntax" {
			msg = "metadata " + approval.MetadataKey + ": " + msg
		}
		p.Reportf(0, ast.Range{Start: pr.Pos, End: pr.Pos}, "%s", msg)
	}
}
