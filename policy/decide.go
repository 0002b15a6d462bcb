package policy

import (
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Decide returns what p decides for c: the first rule whose condition
// holds decides; none holding, the default. A condition that fails to
// evaluate (a key the arguments lack, say: guard it with has()) or runs
// over its cost limit decides deny, naming the rule: a policy fails
// closed. A nil policy allows everything.
func (p *Policy) Decide(c Call) Decision {
	if p == nil {
		return Decision{Action: Allow}
	}
	if len(p.Rules) == 0 {
		return Decision{Action: p.Default, Digest: p.Digest}
	}
	a := activation{tool: types.String(c.Tool), args: mapValue(c.Args), effect: types.String(c.Effect)}
	if c.Static != nil {
		a.server, a.annotations = c.Static.server, c.Static.annotations
	} else {
		st := NewStatic(c.Server, c.Annotations)
		a.server, a.annotations = st.server, st.annotations
	}
	for k := range p.Rules {
		r := &p.Rules[k]
		out, _, err := r.prg.Eval(&a)
		if err != nil {
			return Decision{Action: Deny, Rule: r.Name, Digest: p.Digest,
				Message: fmt.Sprintf("policy rule %q could not be evaluated for %s: %v", r.Name, c.Tool, err)}
		}
		if out == types.True {
			return Decision{Action: r.Action, Rule: r.Name, Message: r.Message, Digest: p.Digest}
		}
	}
	return Decision{Action: p.Default, Digest: p.Digest}
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

// Static is the part of a call that is the same for every call of one
// tool on one server — the server and the annotations as rules see them —
// made once (NewStatic) and handed to Decide in Call.Static.
type Static struct {
	server, annotations ref.Val
}

// NewStatic makes the Static of a tool's calls.
func NewStatic(server Server, annotations map[string]any) *Static {
	return &Static{
		server: types.DefaultTypeAdapter.NativeToValue(map[string]string{
			"name": server.Name, "command": server.Command, "host": server.Host}),
		annotations: annotationsValue(annotations),
	}
}
