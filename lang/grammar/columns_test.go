package grammar_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// columnArgs are action arguments whose member "n" (or, with the member
// cut, the '}' an invalid-JSON rejection points at) sits after multi-byte
// characters and a tab on line 8 of columnDoc's skill.
var columnArgs = []struct {
	name, q string
	sep     string // between the "q" member and the next one
	col     int    // the character column of "n" (and of the rejection)
	byteCol int
}{
	{"ascii", "abc", " ", 33, 33},
	{"é (2 bytes)", "é", " ", 31, 32},
	{"中 (3 bytes)", "中", " ", 31, 33},
	{"😀 (4 bytes, 2 UTF-16 units)", "😀", " ", 31, 34},
	{"a tab", "x", "\t", 31, 31},
	{"all of them", "é中😀", "\t", 33, 39},
}

// columnDoc is a skill whose step 1 action has the arguments rest after
// `{"q": "<q>",<sep>`.
func columnDoc(q, sep, rest string) string {
	return "---\nname: c\ndescription: d\n---\n\n### Step 1 — Fetch é\n- intent: fetch\n" +
		`- action: http.get {"q": "` + q + `",` + sep + rest + "\n" +
		"- assert: status == 200\n- effect: read\n"
}

// TestColumnsCountCharacters: a column counts characters (code points),
// whatever the bytes of the characters before it, for tree nodes and for
// rejections alike, and the column a JSON rejection names in its message is
// the one it is reported at.
func TestColumnsCountCharacters(t *testing.T) {
	for _, tt := range columnArgs {
		t.Run(tt.name, func(t *testing.T) {
			src := columnDoc(tt.q, tt.sep, `"n": 1}`)
			line := strings.Split(src, "\n")[7]
			if got := strings.Index(line, `"n"`) + 1; got != tt.byteCol {
				t.Fatalf("the test's byte column is %d, want %d", got, tt.byteCol)
			}
			skill, diags := grammar.Parse("c.skill.md", []byte(src))
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			obj := skill.Steps[0].Action.Args.(*ast.Object)
			if got := obj.Members[1].KeyRange.Start; got.Line != 8 || int(got.Column) != tt.col {
				t.Errorf(`"n" at %d:%d, want 8:%d`, got.Line, got.Column, tt.col)
			}
			if got := skill.Steps[0].TitleRange.End.Column; got != 21 { // "### Step 1 — Fetch é"
				t.Errorf("the title ends at column %d, want 21", got)
			}

			_, diags = grammar.Parse("c.skill.md", []byte(columnDoc(tt.q, tt.sep, "}")))
			if len(diags) != 1 {
				t.Fatalf("diagnostics: %v", diags)
			}
			d := diags[0]
			prefix := fmt.Sprintf("c.skill.md:8:%d: error: step 1: ", tt.col)
			if !strings.HasPrefix(d.String(), prefix) || !strings.HasSuffix(d.Message, fmt.Sprintf(" at column %d", tt.col)) {
				t.Errorf("got %q, want it to start %q and its message to name column %d", d.String(), prefix, tt.col)
			}
		})
	}
}

// TestFragmentColumns: the entry points that parse a fragment count its
// columns in characters from the column of base.
func TestFragmentColumns(t *testing.T) {
	base := ast.Pos{Offset: 100, Line: 3, Column: 5}
	v, d := grammar.ParseArgs("{\"é中😀\":\t1, \"n\": 2}", base)
	if d != nil {
		t.Fatal(d)
	}
	// {"é中😀":<tab>1, "n" — "n" is byte 17 and character 11 of the
	// fragment.
	if got := v.(*ast.Object).Members[1].KeyRange.Start; got != (ast.Pos{Offset: 100 + 17, Line: 3, Column: 5 + 11}) {
		t.Errorf(`"n" at %+v`, got)
	}
	_, d = grammar.ParseArgs(`{"é": 1,}`, base)
	if d == nil || d.Range.Start.Column != 5+8 || !strings.HasSuffix(d.Message, " at column 13") {
		t.Errorf("rejection %+v", d)
	}
	b, d := grammar.ParseBind(`héllo = json.a`, base)
	if d == nil || b != nil {
		t.Fatalf("a name with é was accepted: %v %v", b, d)
	}
	a, d := grammar.ParseAssert(`body contains "中😀" `, base)
	if d != nil {
		t.Fatal(d)
	}
	if r := a.(*ast.BodyContainsAssert).TextRange; r.Start.Column != 5+15 || r.End.Column != 5+17 || r.End.Offset != 100+22 {
		t.Errorf("text range %+v", r)
	}
}

// TestTreeColumns checks every position in the trees and diagnostics of
// the corpus and of the tests above against a count of its own: the line
// is one more than the line breaks before the offset, the column one more
// than the characters between the line's start and the offset.
func TestTreeColumns(t *testing.T) {
	srcs := map[string][]byte{}
	for _, kind := range []string{"valid", "invalid"} {
		for _, f := range testutil.Corpus(t, kind) {
			srcs[kind+"/"+f.Name] = f.Src
		}
	}
	for _, tt := range columnArgs {
		srcs["columns/"+tt.name] = []byte(columnDoc(tt.q, tt.sep, `"n": 1}`))
		srcs["columns/"+tt.name+" rejected"] = []byte(columnDoc(tt.q, tt.sep, "}"))
	}
	for name, src := range srcs {
		skill, diags := grammar.Parse(name, src)
		body := strings.TrimPrefix(string(src), "\uFEFF")
		var ps []ast.Pos
		collectPos(reflect.ValueOf(skill), &ps, map[uintptr]bool{})
		collectPos(reflect.ValueOf(diags), &ps, map[uintptr]bool{})
		for _, p := range ps {
			if p == (ast.Pos{}) || int(p.Offset) > len(body) {
				continue // an absent part
			}
			start := strings.LastIndexByte(body[:p.Offset], '\n') + 1
			line := 1 + strings.Count(body[:p.Offset], "\n")
			col := utf8.RuneCountInString(body[start:p.Offset]) + 1
			if int(p.Line) != line || int(p.Column) != col {
				t.Errorf("%s: offset %d is at %d:%d, want %d:%d", name, p.Offset, p.Line, p.Column, line, col)
			}
		}
	}
}

var posType = reflect.TypeFor[ast.Pos]()

// collectPos appends every ast.Pos reachable from v.
func collectPos(v reflect.Value, out *[]ast.Pos, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		collectPos(v.Elem(), out, seen)
	case reflect.Interface:
		if !v.IsNil() {
			collectPos(v.Elem(), out, seen)
		}
	case reflect.Struct:
		if v.Type() == posType {
			*out = append(*out, ast.NewPos(int(v.Field(0).Int()), int(v.Field(1).Int()), int(v.Field(2).Int())))
			return
		}
		for i := range v.NumField() {
			collectPos(v.Field(i), out, seen)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			collectPos(v.Index(i), out, seen)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			collectPos(it.Value(), out, seen)
		}
	}
}
