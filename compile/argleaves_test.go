package compile

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
)

// argLeavesCases are arguments rawArgLeaves reads, and some it leaves to
// the parser.
var argLeavesCases = []string{
	`{}`, `[]`, `{"a":1}`, `{"id":"obj_000123","owner":"usr_000001","sku":"sku_000001_0","page":100002,"filters":{"kind":"k2","limit":5002}}`,
	` { "a" : [ "x" , "yyyy", 12.5e3, -0, true, false, null, "" ] , "b" : { } } `,
	`[["deep", ["er"]], {"k": [1, 2, {"j": "v"}]}]`, `"a string"`, `1234`, `-1.5E+7`, `true`, `null`,
	`{"q":"report for usr_0001 about echo","when":"2026-07-01","tags":["alpha","sku-1-2"]}`,
	`{"a":"x","a":"y"}`, `{"ü":"ünïcödé tëxt"}`, "{\"bad\":\"\xff\xfe\"}",
	// Left to the parser: escapes, holes, invalid JSON.
	`{"a":"line\nbreak"}`, `{"a\u0062":1}`, `{"a":"{{x}}"}`, `{"a":"x {{ y"}`, `{"a":01}`, `{"a":1.}`, `{"a":1e}`,
	`{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `{"a":1} x`, `{`, ``, `   `, `tru`, `{"a":"\u00e9"}`, "{\"a\":\"tab\there\"}",
}

// TestRawArgLeaves checks rawArgLeaves against argLeaves of the parsed
// arguments: the same leaves and kind wherever it reads the arguments.
func TestRawArgLeaves(t *testing.T) {
	read := 0
	for _, src := range argLeavesCases {
		if checkRawArgLeaves(t, src) {
			read++
		}
	}
	if read < 15 {
		t.Errorf("rawArgLeaves read only %d of the cases", read)
	}
}

// checkRawArgLeaves compares the two ways for src and reports whether
// rawArgLeaves read it.
func checkRawArgLeaves(t *testing.T, src string) bool {
	t.Helper()
	got, kind, ok := rawArgLeaves(src, nil)
	if !ok {
		return false
	}
	v, d := grammar.ParseArgs(src, ast.Pos{Line: 1, Column: 1})
	if d != nil {
		t.Fatalf("%q: rawArgLeaves read arguments the parser rejects (%s)", src, d.Message)
	}
	want := argLeaves(v, nil)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(argLeaf{})); diff != "" {
		t.Errorf("%q: leaves differ (-parsed +raw):\n%s", src, diff)
	}
	_, isObject := v.(*ast.Object)
	if isObject != (kind == '{') || !isObject && kindPhrase(kind) != describeValue(v) {
		t.Errorf("%q: kind %q, parsed %s", src, kind, describeValue(v))
	}
	return true
}

func FuzzRawArgLeaves(f *testing.F) {
	for _, src := range argLeavesCases {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) { checkRawArgLeaves(t, src) })
}

// checkArenaArgs compares the arena's arguments with the parser's, holes
// put in at every leaf whose position is a multiple of every (0: none),
// printed; it reports whether the arena read src.
func checkArenaArgs(t *testing.T, src string, every int) bool {
	t.Helper()
	parsed, d := grammar.ParseArgs(src, ast.Pos{})
	st := &step{}
	if d == nil && every > 0 {
		ord := -1
		ast.WalkLeaves(parsed, "", func(ast.Value, string) {
			if ord++; ord%every == 0 {
				h := argHole{ord: ord, whole: fmt.Sprintf("v%d", ord)}
				if ord%(2*every) == 0 {
					h = argHole{ord: ord, composed: composeString("x-y", []holePart{{span: span{0, 1}, name: "c"}})}
				}
				st.holes = append(st.holes, h)
			}
		})
	}
	b := &stepBuilder{arena: new(nodeArena)}
	got, ok := b.arena.args(src, st.holes, b)
	if !ok {
		return false
	}
	if d != nil {
		t.Fatalf("%q: the arena read arguments the parser rejects (%s)", src, d.Message)
	}
	want := (&compiler{}).args(st, json.RawMessage(src), &stepBuilder{})
	if g, w := format.Value(got), format.Value(want); g != w {
		t.Errorf("%q (holes every %d): arena prints %s, parser %s", src, every, g, w)
	}
	return true
}

// TestArenaArgs checks the arena's arguments print as the parser's.
func TestArenaArgs(t *testing.T) {
	read := 0
	for _, src := range argLeavesCases {
		for every := 0; every <= 3; every++ {
			if checkArenaArgs(t, src, every) && every == 0 {
				read++
			}
		}
	}
	if read < 15 {
		t.Errorf("the arena read only %d of the cases", read)
	}
}

func FuzzArenaArgs(f *testing.F) {
	for _, src := range argLeavesCases {
		f.Add(src, uint8(1))
	}
	f.Fuzz(func(t *testing.T, src string, every uint8) { checkArenaArgs(t, src, int(every%4)) })
}
