package replay

import (
	"encoding/json"
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// PolicyCaller is a tool that can say how a call of it looks to a
// policy's rules (server, annotations): an MCP tool (mcpx.Tool).
type PolicyCaller interface {
	PolicyCall(args json.RawMessage, effect ast.Effect) policy.Call
}

// policyGate puts a step's filled call to Options.Policy, keeps the
// decision on the step's record and returns the refusal for a call the
// policy does not allow, or "". The effect the rules see is the step's
// own, else the tool's. A replay has no one to ask: ask refuses.
func (r *runner) policyGate(rec *runlog.StepRecord, st *ast.Step, t tool.Tool, args []byte) string {
	p := r.opts.Policy
	if p == nil {
		return ""
	}
	effect := st.EffectValue()
	if effect == "" {
		effect = t.Effect()
	}
	var c policy.Call
	if pc, ok := t.(PolicyCaller); ok {
		c = pc.PolicyCall(args, effect)
	} else {
		c = policy.Call{Tool: st.Action.Tool, Effect: string(effect)}
		if d, ok := t.(Definer); ok {
			c.Server.Name, _ = d.Definition()
		}
		var m map[string]any
		if json.Unmarshal(args, &m) == nil {
			c.Args = m
		}
	}
	c.Tool = st.Action.Tool
	d := p.Decide(c)
	rec.Policy = &runlog.PolicyDecision{Digest: d.Digest, Rule: d.Rule, Action: string(d.Action)}
	rule := "the policy's default"
	if d.Rule != "" {
		rule = fmt.Sprintf("policy rule %q", d.Rule)
	}
	msg := ""
	if d.Message != "" {
		msg = ": " + d.Message
	}
	switch d.Action {
	case policy.Allow:
		return ""
	case policy.DryRun:
		return fmt.Sprintf("Not sent: a dry run by %s%s", rule, msg)
	case policy.Ask:
		return fmt.Sprintf("Refused by %s, which asks first; a replay has no one to ask%s", rule, msg)
	}
	return fmt.Sprintf("Refused by %s%s", rule, msg)
}
