package compile

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
	"github.com/reelier/reelier/trace"
)

// TestReadArgs pins what a call's top-level arguments say about its
// effect: modes and verb enums read through the verb table, flags set to
// true, the first of the most severe readings, and nothing from nested
// values, false flags, read verbs or free text.
func TestReadArgs(t *testing.T) {
	enums := map[string]bool{"task": true}
	tests := []struct {
		args  string
		class verbs.Class
		what  string
		reach string
	}{
		{`{"mode": "delete", "id": "t1"}`, verbs.Destructive, `the argument mode "delete"`, ""},
		{`{"mode": "list"}`, verbs.None, "", ""},
		{`{"operation": "create", "title": "x"}`, verbs.Write, `the argument operation "create"`, ""},
		{`{"action": "merge"}`, verbs.Unsafe, `the argument action "merge"`, ""},
		{`{"http_method": "DELETE"}`, verbs.Destructive, `the argument http_method "DELETE"`, ""},
		{`{"task": "remove"}`, verbs.Destructive, `the argument task "remove"`, ""},
		{`{"kind": "remove"}`, verbs.None, "", ""},
		{`{"amend": true, "message": "m"}`, verbs.Destructive, "the flag amend: true", ""},
		{`{"amend": false}`, verbs.None, "", ""},
		{`{"deleted": true}`, verbs.None, "", ""},
		{`{"force\u0050ush": true}`, verbs.Destructive, "the flag forcePush: true", ""},
		{`{"allow overwrite": true}`, verbs.Destructive, `the flag "allow overwrite": true`, ""},
		{`{"mode": "create", "force": true, "purge": true}`, verbs.Destructive, "the flag force: true", ""},
		{`{"recursive": true, "mode": "delete"}`, verbs.Destructive, `the argument mode "delete"`, "recursive: true"},
		{`{"recursive": true, "mode": "create"}`, verbs.Write, `the argument mode "create"`, ""},
		{`{"recursive": true}`, verbs.None, "", ""},
		{`{"options": {"force": true}, "spec": {"mode": "delete"}}`, verbs.None, "", ""},
		{`{"mode": "run"}`, verbs.None, "", ""},
		{`{"command": "` + strings.Repeat("delete ", 40) + `"}`, verbs.None, "", ""},
		{`{"command": "rm -rf /tmp/x"}`, verbs.Destructive, `the argument command "rm -rf /tmp/x"`, ""},
		{`{"mode": 3, "force": "true"}`, verbs.None, "", ""},
		{`["delete"]`, verbs.None, "", ""},
		{`"delete"`, verbs.None, "", ""},
		{`{}`, verbs.None, "", ""},
	}
	for _, tt := range tests {
		r, ok := readArgs([]byte(tt.args), enums)
		if ok != (tt.class != verbs.None) || r.class != tt.class || r.what != tt.what || r.reach != tt.reach {
			t.Errorf("readArgs(%s) = %v %q %q, %v; want %v %q %q", tt.args, r.class, r.what, r.reach, ok, tt.class, tt.what, tt.reach)
		}
	}
}

// TestRaise: the arguments make a step more careful, never milder, and
// the server's hints refine a mode's verb as they refine a name's.
func TestRaise(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		tool   string
		ann    *trace.Annotations
		r      argReading
		want   ast.Effect
		raised bool
	}{
		{"edit_tasks", nil, argReading{class: verbs.Destructive, what: "m"}, ast.EffectDestructive, true},
		{"get_item", nil, argReading{class: verbs.Write, verb: "create", what: "m"}, ast.EffectIdempotentWrite, true},
		{"get_item", &trace.Annotations{IdempotentHint: &no}, argReading{class: verbs.Write, verb: "create", what: "m"}, ast.EffectDestructive, true},
		{"get_item", nil, argReading{class: verbs.Unsafe, verb: "merge", what: "m"}, ast.EffectDestructive, true},
		{"get_item", &trace.Annotations{IdempotentHint: &yes}, argReading{class: verbs.Unsafe, verb: "merge", what: "m"}, ast.EffectIdempotentWrite, false},
		{"delete_item", nil, argReading{class: verbs.Write, verb: "create", what: "m"}, ast.EffectDestructive, false},
		{"edit_tasks", nil, argReading{class: verbs.Write, verb: "create", what: "m"}, ast.EffectIdempotentWrite, false},
		{"frobnicate", nil, argReading{class: verbs.Destructive, what: "m"}, ast.EffectDestructive, true},
		{"frobnicate", nil, argReading{class: verbs.Write, verb: "create", what: "m"}, ast.EffectDestructive, false},
	}
	for _, tt := range tests {
		base := classify(tt.tool, tt.ann)
		got := raise(&base, &tt.r, tt.ann)
		if got.Effect != tt.want || (got.Arguments != "") != tt.raised {
			t.Errorf("%s %+v: %s (arguments %q); want %s, raised %v", tt.tool, tt.r, got.Effect, got.Arguments, tt.want, tt.raised)
		}
		if tt.raised && got.Unclassified {
			t.Errorf("%s: raised by its arguments, yet unclassified", tt.tool)
		}
		if effectRank(got.Effect) < effectRank(base.Effect) {
			t.Errorf("%s: %s is milder than the name's %s", tt.tool, got.Effect, base.Effect)
		}
	}
}
