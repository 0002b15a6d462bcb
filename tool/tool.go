package tool

import (
	"context"
	"slices"

	"github.com/reelier/reelier/lang/ast"
)

// Tool is something a step's action can call.
type Tool interface {
	// Effect is the tool's own effect class, used only for a step that
	// declares none.
	Effect() ast.Effect
	// Call runs the tool with the filled arguments, a JSON document. An
	// error means the call itself failed (no response to check).
	Call(ctx context.Context, args []byte) (*Observation, error)
}

// Registry maps tool names, as written in action lines, to tools.
type Registry map[string]Tool

// Names returns the registered tool names, sorted.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
