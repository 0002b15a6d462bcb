package mcpx

import (
	"encoding/json"
	"net/url"
	"strings"

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
	r.policyOnce.Do(r.makePolicyView)
	v := r.policyView
	c := policy.Call{Tool: r.Exposed, Server: v.server, Annotations: v.annotations, Static: v.static, Effect: string(effect)}
	if c.Effect == "" {
		c.Effect = string(v.effect)
	}
	if len(args) > 0 {
		var m map[string]any
		if json.Unmarshal(args, &m) == nil {
			c.Args = m
		}
	}
	return c
}

// policyView is what PolicyCall reads of a route once: the same for
// every call of its tool.
type policyView struct {
	server      policy.Server
	annotations map[string]any
	effect      ast.Effect
	static      *policy.Static
}

func (r *Route) makePolicyView() {
	d := r.Downstream
	v := &policyView{}
	if d.session != nil {
		v.server.Name = d.ServerName()
	}
	if v.server.Name == "" {
		v.server.Name = ServerLabel(d.Name)
	}
	if ParseServer(d.Name).URL != "" {
		if u, err := url.Parse(strings.TrimSpace(d.Name)); err == nil {
			v.server.Host = u.Hostname()
		}
	} else {
		v.server.Command = d.Name
	}
	if r.Raw != nil {
		var def struct {
			Annotations map[string]any `json:"annotations"`
		}
		if json.Unmarshal(r.Raw, &def) == nil {
			v.annotations = def.Annotations
		}
	} else if a := r.Tool.Annotations; a != nil {
		v.annotations = map[string]any{}
		if a.ReadOnlyHint {
			v.annotations["readOnlyHint"] = true
		}
		if a.IdempotentHint {
			v.annotations["idempotentHint"] = true
		}
		if a.DestructiveHint != nil {
			v.annotations["destructiveHint"] = *a.DestructiveHint
		}
		if a.OpenWorldHint != nil {
			v.annotations["openWorldHint"] = *a.OpenWorldHint
		}
	}
	v.effect = policy.LiveEffect(r.Exposed, v.annotations)
	v.static = policy.NewStatic(v.server, v.annotations)
	r.policyView = v
}

// PolicyCall implements replay.PolicyCaller: the call as the route's
// policy view has it, with the step's effect.
func (t *Tool) PolicyCall(args json.RawMessage, effect ast.Effect) policy.Call {
	return t.route.PolicyCall(args, effect)
}
