package mcpx

import (
	"encoding/json"
	"net/url"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/policy"
)

// PolicyCall is a call of the route's tool with args (a JSON object) as a
// policy's rules see it: the server's name (the one it gave itself, else
// its label), its command or its URL's host, the tool's exposed name, the
// arguments, the annotations it declared (those it left out read as the
// MCP defaults, see policy.Call) and effect: the step's when a replay
// gives one, else the tool's own — its annotations' reading (Tool.Effect)
// or, when more severe, what the verbs of its name say.
func (r *Route) PolicyCall(args json.RawMessage, effect ast.Effect) policy.Call {
	d := r.Downstream
	c := policy.Call{Tool: r.Exposed, Effect: string(effect)}
	if d.session != nil {
		c.Server.Name = d.ServerName()
	}
	if c.Server.Name == "" {
		c.Server.Name = ServerLabel(d.Name)
	}
	if ParseServer(d.Name).URL != "" {
		if u, err := url.Parse(d.Name); err == nil {
			c.Server.Host = u.Hostname()
		}
	} else {
		c.Server.Command = d.Name
	}
	if len(args) > 0 {
		var m map[string]any
		if json.Unmarshal(args, &m) == nil {
			c.Args = m
		}
	}
	if r.Raw != nil {
		var def struct {
			Annotations map[string]any `json:"annotations"`
		}
		if json.Unmarshal(r.Raw, &def) == nil {
			c.Annotations = def.Annotations
		}
	} else if a := r.Tool.Annotations; a != nil {
		c.Annotations = map[string]any{}
		if a.ReadOnlyHint {
			c.Annotations["readOnlyHint"] = true
		}
		if a.IdempotentHint {
			c.Annotations["idempotentHint"] = true
		}
		if a.DestructiveHint != nil {
			c.Annotations["destructiveHint"] = *a.DestructiveHint
		}
		if a.OpenWorldHint != nil {
			c.Annotations["openWorldHint"] = *a.OpenWorldHint
		}
	}
	if c.Effect == "" {
		c.Effect = string(policy.LiveEffect(r.Exposed, c.Annotations))
	}
	return c
}

// PolicyCall implements replay.PolicyCaller: the call as the route's
// policy view has it, with the step's effect.
func (t *Tool) PolicyCall(args json.RawMessage, effect ast.Effect) policy.Call {
	return t.route.PolicyCall(args, effect)
}
