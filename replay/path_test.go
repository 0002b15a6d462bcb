package replay

import (
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool/jsondata"
)

// path parses `json.<p> is set` to get a typed path.
func path(t *testing.T, p string) ast.Path {
	t.Helper()
	a, d := grammar.ParseAssert("json."+p+" is set", ast.Pos{Line: 1, Column: 1})
	if d != nil {
		t.Fatalf("ParseAssert(%s): %s", p, d.Message)
	}
	return *ast.AssertPath(a)
}

func TestResolve(t *testing.T) {
	doc := mustParse(t, `{"items":[{"id":"a"},{"id":"b"}],"s":"text","n":null,"o":{"0":"zero","01":"lead","length":7},"e":[]}`)
	tests := []struct {
		path  string
		want  string
		found bool
	}{
		{"items.0.id", `"a"`, true},
		{"items.1.id", `"b"`, true},
		{"items.2.id", ``, false},
		{"items.01", ``, false}, // not how JavaScript spells an index
		{"o.0", `"zero"`, true}, // a digit segment is a key on an object
		{"o.01", `"lead"`, true},
		{"o.length", `7`, true}, // a real member named length
		{"items.length", ``, false},
		{"s.length", ``, false},
		{"s.0", ``, false},
		{"o.constructor", ``, false},
		{"items.0.constructor", ``, false},
		{"n", `null`, true},
		{"n.x", ``, false},
		{"missing", ``, false},
		{"e.0", ``, false},
		{"items.99999999999999999", ``, false},
	}
	for _, tt := range tests {
		v, found := Resolve(doc, path(t, tt.path))
		if found != tt.found || (found && jsondata.String(v) != tt.want) {
			t.Errorf("Resolve(%s) = %s, %v; want %s, %v", tt.path, jsondata.String(v), found, tt.want, tt.found)
		}
	}
}
