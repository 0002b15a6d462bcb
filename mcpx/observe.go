package mcpx

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool"
)

// Observe maps an MCP tool result to the Observation replay checks,
// through the same mapping the compiler applies to a recorded result
// (tool.ToolResult): the result is read in its wire form.
func Observe(res *mcp.CallToolResult) *tool.Observation {
	if res.Content == nil {
		cp := *res
		cp.Content = []mcp.Content{}
		res = &cp
	}
	wire, err := json.Marshal(res)
	if err == nil {
		if obs, err := tool.ObserveToolResult(wire); err == nil {
			return obs
		}
	}
	// A result the SDK cannot print back is an error result with the
	// reason as its text.
	msg := "the tool result could not be read"
	if err != nil {
		msg += ": " + err.Error()
	}
	return &tool.Observation{Status: 500, Headers: map[string]string{}, Body: msg}
}

// ResultResource is the URI of the resource a tool result names: the
// first resource_link content block's, else the first embedded
// resource's; "" when it names none. Nothing else counts (an "id" or
// "url" in the text or the structured content is the tool's own
// business, read by asserts and binds).
func ResultResource(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok && l.URI != "" {
			return l.URI
		}
	}
	for _, c := range res.Content {
		if e, ok := c.(*mcp.EmbeddedResource); ok && e.Resource != nil && e.Resource.URI != "" {
			return e.Resource.URI
		}
	}
	return ""
}

// Tool is an MCP-backed replay tool: a route of the routing table.
type Tool struct {
	router *Router
	route  *Route
}

// Effect implements tool.Tool from the hints the downstream declared,
// read the way MCP defines their defaults: read-only is a read; a tool
// that declares it is not destructive, and does not declare a repeat
// unsafe (idempotentHint: false), is an idempotent write; anything else
// may destroy.
func (t *Tool) Effect() ast.Effect {
	a, _ := t.route.Annotations()
	switch {
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		return ast.EffectRead
	case a.DestructiveHint != nil && !*a.DestructiveHint && !(a.IdempotentHint != nil && !*a.IdempotentHint):
		// Not destructive, and not declared unsafe to repeat.
		return ast.EffectIdempotentWrite
	}
	return ast.EffectDestructive
}

// Call implements tool.Tool: the arguments go to the downstream as they
// are, and its result comes back as an Observation.
func (t *Tool) Call(ctx context.Context, args []byte) (*tool.Observation, error) {
	var meta mcp.Meta
	if key := tool.IdempotencyKey(ctx); key != "" {
		meta = mcp.Meta{tool.IdempotencyMetaKey: key}
	}
	res, _, err := t.router.Call(ctx, t.route.Exposed, args, meta)
	if err != nil {
		return nil, err
	}
	obs := Observe(res)
	obs.Resource = ResultResource(res)
	return obs, nil
}

// Register adds every exposed tool to reg under its exposed name, the name
// a recording made with the same --wrap list used. A name reg already has
// (a builtin such as http.get) keeps its tool; a warning naming the
// skipped MCP tool goes to warn, if not nil.
func (r *Router) Register(reg tool.Registry, warn io.Writer) {
	for _, route := range r.routes {
		if _, taken := reg[route.Exposed]; taken {
			if warn != nil {
				fmt.Fprintf(warn, "[reelier] tool %q from downstream %d (%s) is hidden by the builtin of that name\n", route.Exposed, route.Downstream.Index, route.Downstream.Name)
			}
			continue
		}
		reg[route.Exposed] = &Tool{router: r, route: route}
	}
}

// Definition implements replay.Definer: the name of the server that
// serves the tool (the one it gave itself, else one taken from its
// command) and the tool's definition as the server listed it, under its
// exposed name (the SDK's reading of it, renamed, when the exact bytes
// were not seen, as the recorder keeps it).
func (t *Tool) Definition() (string, json.RawMessage) {
	d := t.route.Downstream
	server := d.ServerName()
	if server == "" {
		server = ServerLabel(d.Name)
	}
	if t.route.Raw != nil {
		return server, t.route.Raw
	}
	raw, err := json.Marshal(t.route.Tool)
	if err != nil {
		return server, nil
	}
	return server, renamed(raw, t.route.Exposed, t.route.Tool.Name)
}
