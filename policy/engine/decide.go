package engine

import (
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"github.com/reelier/reelier/policy"
)

// decider is a loaded policy's policy.Decider: its rules' programs in
// order, its default and its digest.
type decider struct {
	rules  []rule
	def    policy.Action
	digest string
}

// Decide evaluates the rules for c (policy.Policy.Decide calls it for a
// policy with rules): the first whose condition holds decides; none
// holding, the default. A condition that fails to evaluate (a key the
// arguments lack, say: guard it with has()) or runs over its cost limit
// decides deny, naming the rule: a policy fails closed.
func (p *decider) Decide(c policy.Call) policy.Decision {
	if len(p.rules) == 0 {
		return policy.Decision{Action: p.def, Digest: p.digest}
	}
	a := activation{tool: types.String(c.Tool), args: mapValue(c.Args), effect: types.String(c.Effect)}
	var st *static
	if c.Static != nil {
		st = c.Static.Prepared(prepare).(*static)
	} else {
		st = newStatic(c.Server, c.Annotations)
	}
	a.server, a.annotations = st.server, st.annotations
	for k := range p.rules {
		r := &p.rules[k]
		out, _, err := r.prg.Eval(&a)
		if err != nil {
			return policy.Decision{Action: policy.Deny, Rule: r.Name, Digest: p.digest,
				Message: fmt.Sprintf("policy rule %q could not be evaluated for %s: %v", r.Name, c.Tool, err)}
		}
		if out == types.True {
			return policy.Decision{Action: r.Action, Rule: r.Name, Message: r.Message, Digest: p.digest}
		}
	}
	return policy.Decision{Action: p.def, Digest: p.digest}
}

func mapValue(m map[string]any) ref.Val {
	if m == nil {
		m = map[string]any{}
	}
	return types.DefaultTypeAdapter.NativeToValue(m)
}

// annotationsValue is the tool's annotations with the four MCP hints
// always present: those the server left out read as the MCP
// specification's defaults (readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true), so a rule may test any of
// them without has().
func annotationsValue(m map[string]any) ref.Val {
	full := make(map[string]any, len(m)+4)
	for k, v := range hintDefaults {
		full[k] = v
	}
	for k, v := range m {
		full[k] = v
	}
	return types.DefaultTypeAdapter.NativeToValue(full)
}

var hintDefaults = map[string]any{
	"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true,
}

// static is the server and the annotations of a tool's calls as CEL
// values: what policy.Static.Prepared keeps for this engine.
type static struct {
	server, annotations ref.Val
}

func newStatic(server policy.Server, annotations map[string]any) *static {
	return &static{
		server: types.DefaultTypeAdapter.NativeToValue(map[string]string{
			"name": server.Name, "command": server.Command, "host": server.Host}),
		annotations: annotationsValue(annotations),
	}
}

// prepare is the build function handed to policy.Static.Prepared.
func prepare(s *policy.Static) any { return newStatic(s.Server, s.Annotations) }

// activation hands the call's variables to CEL without a map.
type activation struct {
	server, tool, args, annotations, effect ref.Val
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "server":
		return a.server, true
	case "tool":
		return a.tool, true
	case "args":
		return a.args, true
	case "annotations":
		return a.annotations, true
	case "effect":
		return a.effect, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }
