package lint

import (
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// TestArgumentsEffect pins what the rule holds a step to: a mode's
// leading verb (an unsafe-to-repeat one asking only for a write), a flag
// set to true, the first of the most severe readings; nothing from a
// hole, a false flag, a nested value, a read verb or a look-alike name.
func TestArgumentsEffect(t *testing.T) {
	tests := []struct {
		args string
		want ast.Effect
		why  string
	}{
		{`{"mode": "delete", "id": "t1"}`, ast.EffectDestructive, `mode "delete"`},
		{`{"Mode": "soft_delete"}`, ast.EffectDestructive, `Mode "soft_delete"`},
		{`{"operation": "create"}`, ast.EffectIdempotentWrite, `operation "create"`},
		{`{"action": "merge"}`, ast.EffectIdempotentWrite, `action "merge"`},
		{`{"httpMethod": "POST"}`, ast.EffectDestructive, `httpMethod "POST"`},
		{`{"amend": true}`, ast.EffectDestructive, "amend: true"},
		{`{"delete_branch": true, "mode": "create"}`, ast.EffectDestructive, "delete_branch: true"},
		{`{"mode": "create", "force": true}`, ast.EffectDestructive, "force: true"},
		{`{"a b-force": true}`, ast.EffectDestructive, `"a b-force": true`},
		{`{"mode": "list"}`, "", ""},
		{`{"mode": "get_refund"}`, "", ""},
		{`{"mode": "{{m}}"}`, "", ""},
		{`{"mode": "delete {{x}}"}`, "", ""},
		{`{"amend": false}`, "", ""},
		{`{"deleted": true, "recursive": true}`, "", ""},
		{`{"options": {"force": true}}`, "", ""},
		{`{"kind": "delete"}`, "", ""},
		{`{"mode": 3}`, "", ""},
		{`["delete"]`, "", ""},
	}
	for _, tt := range tests {
		args, d := grammar.ParseArgs(tt.args, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			t.Fatalf("%s: %v", tt.args, d.Message)
		}
		if got, why := argumentsEffect(args); got != tt.want || why != tt.why {
			t.Errorf("argumentsEffect(%s) = %q, %q; want %q, %q", tt.args, got, why, tt.want, tt.why)
		}
	}
}
