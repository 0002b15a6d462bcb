package grammar_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
)

var base = ast.Pos{Offset: 100, Line: 7, Column: 11}

func TestParseAssert(t *testing.T) {
	tests := []struct {
		src, typ, canon string
	}{
		{"status == 200", "*ast.StatusAssert", "status == 200"},
		{"status!=404", "*ast.StatusAssert", "status != 404"},
		{`body contains "ok"`, "*ast.BodyContainsAssert", `body contains "ok"`},
		{`body   not   contains "say "hi""`, "*ast.BodyContainsAssert", `body not contains "say "hi""`},
		{`body contains ""`, "*ast.BodyContainsAssert", `body contains ""`},
		{"json.items is array", "*ast.JSONIsAssert", "json.items is array"},
		{"json.a.0.b is set", "*ast.JSONIsAssert", "json.a.0.b is set"},
		{"json.n is number", "*ast.JSONIsAssert", "json.n is number"},
		{"json.s is string", "*ast.JSONIsAssert", "json.s is string"},
		{"json.b is boolean", "*ast.JSONIsAssert", "json.b is boolean"},
		{"json.z is null", "*ast.JSONIsAssert", "json.z is null"},
		{"json.id matches /^[a-f0-9]{8}$/", "*ast.JSONMatchesAssert", "json.id matches /^[a-f0-9]{8}$/"},
		{"json.s matches /a/b/", "*ast.JSONMatchesAssert", "json.s matches /a/b/"},
		{"json.items length > 0", "*ast.JSONLengthAssert", "json.items length > 0"},
		{"json.items length<10", "*ast.JSONLengthAssert", "json.items length < 10"},
		{"json.items length >= 1", "*ast.JSONLengthAssert", "json.items length >= 1"},
		{"json.items length <= 3", "*ast.JSONLengthAssert", "json.items length <= 3"},
		{`json.name == "Ada"`, "*ast.JSONCompareAssert", `json.name == "Ada"`},
		{`json.name != "x\"y"`, "*ast.JSONCompareAssert", `json.name != "x\"y"`},
		{"json.n >= 1.50", "*ast.JSONCompareAssert", "json.n >= 1.50"},
		{"json.n<-3e2", "*ast.JSONCompareAssert", "json.n < -3e2"},
		{"json.ok == true", "*ast.JSONCompareAssert", "json.ok == true"},
		{"json.gone == null", "*ast.JSONCompareAssert", "json.gone == null"},
		{"json.length == 3", "*ast.JSONCompareAssert", "json.length == 3"},
		{"json.n <= 0", "*ast.JSONCompareAssert", "json.n <= 0"},
		{"json.n > 0", "*ast.JSONCompareAssert", "json.n > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a, d := grammar.ParseAssert(tt.src, base)
			if d != nil {
				t.Fatalf("unexpected diagnostic: %v", d)
			}
			if got := fmt.Sprintf("%T", a); got != tt.typ {
				t.Errorf("type = %s, want %s", got, tt.typ)
			}
			if got := format.Assert(a); got != tt.canon {
				t.Errorf("canonical = %q, want %q", got, tt.canon)
			}
			if r := a.Span(); r.Start != base || int(r.End.Offset) != int(base.Offset)+len(tt.src) {
				t.Errorf("range = %+v, want from %+v over %d bytes", r, base, len(tt.src))
			}
		})
	}
}

func TestParseAssertRejects(t *testing.T) {
	tests := []struct{ src, code, msg string }{
		{"status = 200", grammar.CodeUnknownAssert, "Unrecognized assert expression: status = 200"},
		{"status > 200", grammar.CodeUnknownAssert, "Unrecognized assert expression: status > 200"},
		{"status == abc", grammar.CodeUnknownAssert, "Unrecognized assert expression: status == abc"},
		{"json.x iss array", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.x iss array"},
		{"json.x is list", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.x is list"},
		{"json.a..b is set", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.a..b is set"},
		{"json. a is set", grammar.CodeUnknownAssert, "Unrecognized assert expression: json. a is set"},
		{"json.a length == 2", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.a length == 2"},
		{"json.a length > -1", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.a length > -1"},
		{"json.a == [1]", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.a == [1]"},
		{"json.a == nope", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.a == nope"},
		{"json.a matches /a/i", grammar.CodeUnknownAssert, "Unrecognized assert expression: json.a matches /a/i"},
		{"json.a matches /(/", grammar.CodeAssertRegex, "Invalid regex in assert: "},
		{"body contains 'x'", grammar.CodeUnknownAssert, "Unrecognized assert expression: body contains 'x'"},
		{`body contains "x" and more`, grammar.CodeUnknownAssert, `Unrecognized assert expression: body contains "x" and more`},
		{"", grammar.CodeUnknownAssert, "Unrecognized assert expression: "},
		{"headers.x == 1", grammar.CodeUnknownAssert, "Unrecognized assert expression: headers.x == 1"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a, d := grammar.ParseAssert(tt.src, base)
			if d == nil {
				t.Fatalf("accepted as %T", a)
			}
			if d.Code != tt.code || len(d.Message) < len(tt.msg) || d.Message[:len(tt.msg)] != tt.msg {
				t.Errorf("got %s %q, want %s %q", d.Code, d.Message, tt.code, tt.msg)
			}
			if d.Range.Start.Line != base.Line {
				t.Errorf("diagnostic line %d, want %d", d.Range.Start.Line, base.Line)
			}
		})
	}
}

func TestParseBind(t *testing.T) {
	tests := []struct{ src, typ, name, canon string }{
		{"id = json.items.0.id", "*ast.JSONBind", "id", "id = json.items.0.id"},
		{"_x=json.a", "*ast.JSONBind", "_x", "_x = json.a"},
		{"today2 = json.d", "*ast.JSONBind", "today2", "today2 = json.d"},
		{"tok = body match /token=([a-z]+)/", "*ast.BodyMatchBind", "tok", "tok = body match /token=([a-z]+)/"},
		{"p = body match /a\\/b=(\\d+)/", "*ast.BodyMatchBind", "p", "p = body match /a\\/b=(\\d+)/"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			b, d := grammar.ParseBind(tt.src, base)
			if d != nil {
				t.Fatalf("unexpected diagnostic: %v", d)
			}
			if got := fmt.Sprintf("%T", b); got != tt.typ {
				t.Errorf("type = %s, want %s", got, tt.typ)
			}
			if b.BoundName() != tt.name {
				t.Errorf("name = %q, want %q", b.BoundName(), tt.name)
			}
			if got := format.Bind(b); got != tt.canon {
				t.Errorf("canonical = %q, want %q", got, tt.canon)
			}
			if nr := b.BoundNameRange(); nr.Start.Column != base.Column || int(nr.End.Column) != int(base.Column)+len(tt.name) {
				t.Errorf("name range = %+v", nr)
			}
		})
	}
}

func TestParseBindRejects(t *testing.T) {
	reserved := "Bind name '%s' is reserved for the computed date template vars ({{today}}, {{today-Nd}}, {{today+Nd}}) and cannot be used as a bind name"
	tests := []struct{ src, code, msg string }{
		{"today = json.d", grammar.CodeReservedBind, fmt.Sprintf(reserved, "today")},
		{"today-7d = json.d", grammar.CodeReservedBind, fmt.Sprintf(reserved, "today-7d")},
		{"today+365d = body match /(x)/", grammar.CodeReservedBind, fmt.Sprintf(reserved, "today+365d")},
		{"x == json.y", grammar.CodeUnknownBind, "Unrecognized bind expression: x == json.y"},
		{"1x = json.a", grammar.CodeUnknownBind, "Unrecognized bind expression: 1x = json.a"},
		{"x = json", grammar.CodeUnknownBind, "Unrecognized bind expression: x = json"},
		{"x = body matches /(a)/", grammar.CodeUnknownBind, "Unrecognized bind expression: x = body matches /(a)/"},
		{"x = body match /(/", grammar.CodeBindRegex, "Invalid regex in bind: "},
		{"x = status", grammar.CodeUnknownBind, "Unrecognized bind expression: x = status"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			b, d := grammar.ParseBind(tt.src, base)
			if d == nil {
				t.Fatalf("accepted as %T", b)
			}
			if d.Code != tt.code || len(d.Message) < len(tt.msg) || d.Message[:len(tt.msg)] != tt.msg {
				t.Errorf("got %s %q, want %s %q", d.Code, d.Message, tt.code, tt.msg)
			}
		})
	}
}

func TestHoles(t *testing.T) {
	tests := []struct {
		json string
		want []string // Text() of each hole, with its kind and days
	}{
		{`"{{name}}"`, []string{"name var 0"}},
		{`"a {{today}} b {{today-7d}} c {{today+30d}}"`, []string{"today today 0", "today-7d offset -7", "today+30d offset 30"}},
		{`"{{ spaced }}"`, []string{"spaced var 0"}},
		{`"{{today-0d}}"`, []string{"today-0d offset 0"}},
		{`"{{today-400d}}"`, []string{"today-400d offset -400"}},
		{`"{{not a hole}} {{9x}} {{foo-1d}} {{}} {{x"`, nil},
		// Text that starts like a computed date with an offset and is not
		// one is a malformed date, which a replay fails (not literal text).
		{`"{{today - 7d}} {{today+3}} {{ today-x }}"`, []string{"today - 7d malformed 0", "today+3 malformed 0", "today-x malformed 0"}},
		{`"\u007b{x}}"`, []string{"x var 0"}},
		{`{"k{{x}}": 1}`, nil},
		{`[1, {"a": ["{{deep}}"]}]`, []string{"deep var 0"}},
	}
	kinds := map[ast.HoleKind]string{ast.HoleVar: "var", ast.HoleToday: "today", ast.HoleTodayOffset: "offset", ast.HoleMalformedDate: "malformed"}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			v, d := grammar.ParseArgs(tt.json, base)
			if d != nil {
				t.Fatal(d)
			}
			var got []string
			for _, h := range ast.Holes(v) {
				got = append(got, fmt.Sprintf("%s %s %d", h.Text(), kinds[h.Kind], h.Days))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("holes = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHoleRangesMapThroughEscapes(t *testing.T) {
	src := `{"u": "a\"b{{id}}"}`
	v, d := grammar.ParseArgs(src, base)
	if d != nil {
		t.Fatal(d)
	}
	h := ast.Holes(v)[0]
	start := h.Range.Start.Offset - base.Offset
	end := h.Range.End.Offset - base.Offset
	if got := src[start:end]; got != "{{id}}" {
		t.Errorf("hole range covers %q, want {{id}}", got)
	}
	if got := src[h.NameRange.Start.Offset-base.Offset : h.NameRange.End.Offset-base.Offset]; got != "id" {
		t.Errorf("name range covers %q", got)
	}
}

func TestParseArgsRejects(t *testing.T) {
	for _, src := range []string{`{`, `{"a" 1}`, `{"a": 1,}`, `[1 2]`, `"unterminated`, `01`, `1.`, `-`, `{"a": 1} x`, `nul`, "\"tab\there\"", `"\x"`, `"\u12"`, `{a: 1}`} {
		t.Run(src, func(t *testing.T) {
			if v, d := grammar.ParseArgs(src, base); d == nil {
				t.Fatalf("accepted %q as %s", src, format.Value(v))
			} else if d.Code != grammar.CodeInvalidJSON {
				t.Errorf("code %s", d.Code)
			}
		})
	}
}

func TestArgsKeepOrderAndDuplicates(t *testing.T) {
	src := `{"z": 1, "a": {"y": [true, false, null, -0, 1.50, 1e3]}, "z": "again", "é": "\u00e9\n"}`
	v, d := grammar.ParseArgs(src, base)
	if d != nil {
		t.Fatal(d)
	}
	want := `{"z": 1, "a": {"y": [true, false, null, -0, 1.50, 1e3]}, "z": "again", "é": "é\n"}`
	if got := format.Value(v); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDeepNestingIsAnErrorNotACrash(t *testing.T) {
	deep := strings.Repeat("[", 100000)
	if _, d := grammar.ParseArgs(deep, base); d == nil {
		t.Fatal("accepted 100000 open brackets")
	}
}
