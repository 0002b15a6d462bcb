package policy

import (
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
)

// LiveEffect is a tool's effect when no step names one (the live agent,
// a recording read by `reelier policy test`): what its declared
// annotations say (readOnlyHint: read; destructiveHint false and not
// idempotentHint false: idempotent-write; else destructive), raised to
// what the verbs of its name say when that is more severe; with no hint
// declared, what the verbs say alone, a name whose verbs say nothing (or
// say "run") reading as destructive.
func LiveEffect(tool string, annotations map[string]any) ast.Effect {
	m := verbs.Scan(tool)
	ro, hasRO := annotations["readOnlyHint"].(bool)
	de, hasDe := annotations["destructiveHint"].(bool)
	id, hasID := annotations["idempotentHint"].(bool)
	if !hasRO && !hasDe && !hasID {
		switch {
		case m.Opaque != "":
			return ast.EffectDestructive
		case m.Class == verbs.Read:
			return ast.EffectRead
		case m.Class == verbs.Write:
			return ast.EffectIdempotentWrite
		}
		return ast.EffectDestructive
	}
	e := ast.EffectDestructive
	switch {
	case hasRO && ro:
		e = ast.EffectRead
	case hasDe && !de && !(hasID && !id):
		e = ast.EffectIdempotentWrite
	}
	switch m.Class {
	case verbs.Destructive, verbs.Unsafe:
		return ast.EffectDestructive
	case verbs.Write:
		if e == ast.EffectRead {
			return ast.EffectIdempotentWrite
		}
	}
	return e
}
