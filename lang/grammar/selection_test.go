package grammar_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
)

// TestParseSelection: each selection form parses to its node, prints
// canonically, and its canonical text parses to the same canonical text.
func TestParseSelection(t *testing.T) {
	tests := []struct {
		bind         bool
		src, canon   string
		pick         ast.Pick
		kind         ast.SourceKind
		conds        int
		order        ast.Ordering
		holes, field string
	}{
		{true, `log = max(lines /^(?<file>app-[\w.-]+\.log)\s+(?<when>\S+)$/ by when as date).file`, "", ast.PickMax, ast.SourceLines, 0, ast.OrderDate, "", "file"},
		{true, `lead = only(json.entities where entityType == "lead" and name contains "{{customer}}").name`, "", ast.PickOnly, ast.SourceJSON, 2, ast.OrderNone, "customer", "name"},
		{false, `count(json.entities where name == "{{customer}}") == 0`, "", ast.PickCount, ast.SourceJSON, 1, ast.OrderNone, "customer", ""},
		{true, `total = sum(json.invoices where status == "overdue").amount`, "", ast.PickSum, ast.SourceJSON, 1, ast.OrderNone, "", "amount"},
		{true, `ids = join(json.invoices where status == "overdue" by id as name sep ", ").id`, "", ast.PickJoin, ast.SourceJSON, 1, ast.OrderName, "", "id"},
		{true, `cheapest = min(lines /^\|\s*(\w+)\s*\|\s*(\d+)\s*\|$/ by 2 as number).1`, "", ast.PickMin, ast.SourceLines, 0, ast.OrderNumber, "", "1"},
		{false, `only(json where title matches /stale/) is set`, "", ast.PickOnly, ast.SourceJSON, 1, ast.OrderNone, "", ""},
		// Blanks are free where the canonical form has one, and tight
		// where it has none; the ordering is printed in lower case.
		{true, `x=first ( json.a.b   where n>=2 and it!="x" by meta.at as Version )`, `x = first(json.a.b where n >= 2 and it != "x" by meta.at as version)`, ast.PickFirst, ast.SourceJSON, 2, ast.OrderVersion, "", ""},
		{true, `x = last(lines)`, "", ast.PickLast, ast.SourceLines, 0, ast.OrderNone, "", ""},
		{true, `x = max(lines)`, "", ast.PickMax, ast.SourceLines, 0, ast.OrderNone, "", ""},
		{true, `x = first(lines where it not contains "#")`, "", ast.PickFirst, ast.SourceLines, 1, ast.OrderNone, "", ""},
		{true, `x = join(json.tags)`, "", ast.PickJoin, ast.SourceJSON, 0, ast.OrderNone, "", ""},
		{true, `x = join(lines)`, "", ast.PickJoin, ast.SourceLines, 0, ast.OrderNone, "", ""},
		{true, `x = sum(lines /(\d+)/).1`, "", ast.PickSum, ast.SourceLines, 0, ast.OrderNone, "", "1"},
		{true, `x = join(json.tags sep "\t\"|")`, "", ast.PickJoin, ast.SourceJSON, 0, ast.OrderNone, "", ""},
		{true, `x = first(json where n < -1.5e3 and ok == true and gone == null and s == "a/b)")`, "", ast.PickFirst, ast.SourceJSON, 4, ast.OrderNone, "", ""},
		{true, `x = first(json where s == "a\u0041")`, `x = first(json where s == "aA")`, ast.PickFirst, ast.SourceJSON, 1, ast.OrderNone, "", ""},
		{true, `x = first(lines /a[/]b(c)/ where 1 matches /[)]/ by 0 as text)`, "", ast.PickFirst, ast.SourceLines, 1, ast.OrderText, "", ""},
		{true, `x = first(lines /(?<n>\d+)/ where n == "{{a}}{{today-1d}}")`, "", ast.PickFirst, ast.SourceLines, 1, ast.OrderNone, "a today", ""},
		{false, `first(json.items where id == "{{id}}").state == "{{want}}"`, "", ast.PickFirst, ast.SourceJSON, 1, ast.OrderNone, "id", "state"},
		{false, `last(json.a).b matches /^v\d/`, "", ast.PickLast, ast.SourceJSON, 0, ast.OrderNone, "", "b"},
		{false, `sum(json.a).n > 10`, "", ast.PickSum, ast.SourceJSON, 0, ast.OrderNone, "", "n"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			canon := tt.canon
			if canon == "" {
				canon = tt.src
			}
			var sel *ast.Selection
			var printed string
			if tt.bind {
				b, d := grammar.ParseBind(tt.src, base)
				if d != nil {
					t.Fatalf("unexpected diagnostic: %v", d)
				}
				sb, ok := b.(*ast.SelectionBind)
				if !ok {
					t.Fatalf("parsed as %T", b)
				}
				sel, printed = sb.Sel, format.Bind(b)
				again, d := grammar.ParseBind(printed, base)
				if d != nil || format.Bind(again) != printed {
					t.Fatalf("canonical %q does not round-trip: %v", printed, d)
				}
			} else {
				a, d := grammar.ParseAssert(tt.src, base)
				if d != nil {
					t.Fatalf("unexpected diagnostic: %v", d)
				}
				sa, ok := a.(*ast.SelectionAssert)
				if !ok {
					t.Fatalf("parsed as %T", a)
				}
				sel, printed = sa.Sel, format.Assert(a)
				again, d := grammar.ParseAssert(printed, base)
				if d != nil || format.Assert(again) != printed {
					t.Fatalf("canonical %q does not round-trip: %v", printed, d)
				}
			}
			if printed != canon {
				t.Errorf("canonical = %q, want %q", printed, canon)
			}
			if sel.Pick != tt.pick || sel.Source.Kind != tt.kind || len(sel.Where) != tt.conds || sel.Order != tt.order {
				t.Errorf("pick %s source %d conds %d order %q", sel.Pick, sel.Source.Kind, len(sel.Where), sel.Order)
			}
			var holes []string
			for _, h := range sel.Holes() {
				holes = append(holes, h.Name)
			}
			if got := strings.Join(holes, " "); got != tt.holes {
				t.Errorf("holes = %q, want %q", got, tt.holes)
			}
			if got := sel.Field.String(); got != tt.field {
				t.Errorf("field = %q, want %q", got, tt.field)
			}
			// Every range lies within the source, on its line.
			for _, r := range selectionRanges(sel) {
				if r.Start.Line != base.Line || r.Start.Offset < base.Offset || int(r.End.Offset) > int(base.Offset)+len(tt.src) || r.Start.Offset > r.End.Offset {
					t.Errorf("range %+v outside the source", r)
				}
			}
		})
	}
}

func selectionRanges(s *ast.Selection) []ast.Range {
	out := []ast.Range{s.Range, s.PickRange, s.Source.Range}
	for _, c := range s.Where {
		out = append(out, c.Range, c.OpRange, c.Key.Range)
	}
	if s.HasBy {
		out = append(out, s.By.Range)
	}
	return out
}

// TestSelectionRanges: the ranges point at what they name.
func TestSelectionRanges(t *testing.T) {
	src := `ids = join(json.inv where status == "late" and name contains "{{c}}" by id as name sep ", ").id`
	b, d := grammar.ParseBind(src, base)
	if d != nil {
		t.Fatal(d)
	}
	s := b.(*ast.SelectionBind).Sel
	text := func(r ast.Range) string { return src[int(r.Start.Offset-base.Offset):int(r.End.Offset-base.Offset)] }
	checks := []struct{ got, want string }{
		{text(s.Range), src[len("ids = "):]},
		{text(s.PickRange), "join"},
		{text(s.Source.Range), "json.inv"},
		{text(s.Source.Path.Range), "json.inv"},
		{text(s.Where[0].Range), `status == "late"`},
		{text(s.Where[0].Key.Range), "status"},
		{text(s.Where[0].OpRange), "=="},
		{text(s.Where[0].Value.Span()), `"late"`},
		{text(s.Where[1].OpRange), "contains"},
		{text(s.Where[1].Value.(*ast.String).Holes[0].Range), "{{c}}"},
		{text(s.By.Range), "id"},
		{text(s.OrderRange), "name"},
		{text(s.SepRange), `", "`},
		{text(s.Field.Range), ".id"},
		{text(b.BoundNameRange()), "ids"},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("%d: range covers %q, want %q", i, c.got, c.want)
		}
	}
	a, d := grammar.ParseAssert(`max(lines /(\d+) (\w+)/ by 1 as number).2 matches /^a/`, base)
	if d != nil {
		t.Fatal(d)
	}
	sa := a.(*ast.SelectionAssert)
	src = `max(lines /(\d+) (\w+)/ by 1 as number).2 matches /^a/`
	if got := text(sa.Sel.Source.PatternRange); got != `(\d+) (\w+)` {
		t.Errorf("source pattern range covers %q", got)
	}
	if got := text(sa.PatternRange); got != `^a` {
		t.Errorf("pattern range covers %q", got)
	}
	if got := text(sa.Sel.Source.Range); got != `lines /(\d+) (\w+)/` {
		t.Errorf("source range covers %q", got)
	}
}

// TestParseSelectionRejects: each parse-time error of a selection at its
// column, with its code and message (and suggestion, when there is one).
func TestParseSelectionRejects(t *testing.T) {
	tests := []struct {
		bind               bool
		src, code, msg, at string // at: the text the diagnostic starts with
		detail             string
	}{
		{true, `x = frist(json.a)`, grammar.CodeSelection, `Invalid selection: unknown pick "frist"`, "frist", `did you mean "first"?`},
		{false, `maxx(json.a) == 1`, grammar.CodeSelection, `Invalid selection: unknown pick "maxx"`, "maxx", `did you mean "max"?`},
		{true, `x = frist(json.a where`, grammar.CodeSelection, `Invalid selection: unknown pick "frist"`, "frist", `did you mean "first"?`},
		{true, `x = first(jsno.a)`, grammar.CodeSelection, `Invalid selection: unknown source "jsno"`, "jsno", `did you mean "json"?`},
		{true, `x = first(json.a by t as dat)`, grammar.CodeSelection, `Invalid selection: unknown ordering "dat" after as`, "dat", `did you mean "date"?`},
		{true, `x = max(lines /(a)(b)/ by 3)`, grammar.CodeSelection, "Invalid selection: the regex of lines has no group 3: it has 2", "3", ""},
		{true, `x = max(lines /(?<when>a)/ by whne)`, grammar.CodeSelection, `Invalid selection: the regex of lines has no group named "whne": its names are when`, "whne", `did you mean "when"?`},
		{true, `x = first(lines /(a)/ where name == "x")`, grammar.CodeSelection, `Invalid selection: the regex of lines has no group named "name": it has no named groups`, "name", ""},
		{true, `x = max(lines /(a)/ by it)`, grammar.CodeSelection, "Invalid selection: over lines /…/ each element is an object of its captures", "it", ""},
		{true, `x = first(lines /(a)/).2`, grammar.CodeSelection, "Invalid selection: the regex of lines has no group 2", ".2", ""},
		{true, `x = first(lines /(a)/ by 1.x)`, grammar.CodeSelection, `Invalid selection: a capture is a string: "1" has no parts`, "1.x", ""},
		{true, `x = first(lines where name == "a")`, grammar.CodeSelection, "Invalid selection: plain lines are strings", "name", ""},
		{true, `x = first(lines).a`, grammar.CodeSelection, "Invalid selection: plain lines are strings", ".a", ""},
		{false, `count(json.a).n == 1`, grammar.CodeSelection, "Invalid selection: count returns a number: it takes no path after ')'", ".n", ""},
		{true, `x = first(json.a sep ",")`, grammar.CodeSelection, "Invalid selection: sep is join's separator; first takes none", "sep", ""},
		{true, `x = join(json.a sep "{{x}}")`, grammar.CodeSelection, "Invalid selection: the separator is literal text", `"{{x}}"`, ""},
		{true, `x = max(lines /(\d+)/)`, grammar.CodeSelection, "Invalid selection: max over lines /…/ needs by <capture>", "max", ""},
		{true, `x = min(lines /(\d+)/ where 1 == "2")`, grammar.CodeSelection, "Invalid selection: min over lines /…/ needs by <capture>", "min", ""},
		{true, `x = sum(lines /(\d+)/)`, grammar.CodeSelection, "Invalid selection: sum over lines /…/ needs the capture to add up after ')'", "sum", ""},
		{true, `x = join(lines /(\d+)/ sep " ")`, grammar.CodeSelection, "Invalid selection: join over lines /…/ needs the capture to join after ')'", "join", ""},
		{true, `x = first(lines /(/)`, grammar.CodeBindRegex, "Invalid regex in bind: ", "/(/", ""},
		{false, `first(json where a matches /(/) is set`, grammar.CodeAssertRegex, "Invalid regex in assert: ", "/(/", ""},
		{false, `only(json where title matches /stale/i) is set`, grammar.CodeSelection, "Invalid selection: regex flags are not supported (/stale/i)", "i", ""},
		{false, `first(json) matches /a/g`, grammar.CodeSelection, "Invalid selection: regex flags are not supported", "g", ""},
		{true, `x = first(json /a/)`, grammar.CodeSelection, "Invalid selection: a regex filters lines, not JSON", "/a/", ""},
		{true, `x = first(lines.a)`, grammar.CodeSelection, "Invalid selection: lines takes no path", ".a", ""},
		{true, `x = first(json. a)`, grammar.CodeSelection, "Invalid selection: the source path is written without blanks", ". a", ""},
		{true, `x = first(json where a. b == 1)`, grammar.CodeSelection, "Invalid selection: a condition's key is written without blanks", ". b", ""},
		{true, `x = first(json) .a`, grammar.CodeSelection, "Invalid selection: the path after ')' follows it without blanks", ") .", ""},
		{true, `x = first(json where a == 1.2.3)`, grammar.CodeSelection, "Invalid selection: a condition's value is not a JSON scalar", "1.2.3", ""},
		{true, `x = first(json where a == "\x")`, grammar.CodeSelection, "Invalid selection: a condition's value is not a JSON scalar", `"\x"`, ""},
		{false, `first(json) is sett`, grammar.CodeSelection, `Invalid selection: unknown type "sett" after is`, "sett", `did you mean "set"?`},
		{true, `x = first(json where a == nope)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json where a == [1])`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json by a as)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json as number)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json where a == "x"`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json where a contains 3)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json sep "," where a == 1)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "", ""},
		{true, `x = first(json where a == "x)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", `"x)`, "the string that starts here is not closed"},
		{false, `first(lines /(a\/) is set`, grammar.CodeUnknownAssert, "Unrecognized assert expression: ", `/(a`, "the regex that starts here is not closed"},
		{true, `x = first(json where a == 1 and)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", "and", ""},
		{true, `x = first(json where a ==)`, grammar.CodeUnknownBind, "Unrecognized bind expression: ", ")", `unexpected token ")" (expected (a JSON string | a number | "true" | "false" | "null"))`},
		{false, `first(json.a)`, grammar.CodeUnknownAssert, "Unrecognized assert expression: ", "", ""},
		{false, `first(json.a) length > 1`, grammar.CodeUnknownAssert, "Unrecognized assert expression: ", "", ""},
		{true, `today = first(json.a)`, grammar.CodeReservedBind, "Bind name 'today' is reserved", "today", ""},
		{true, `x = first(json.` + strings.Repeat("a.", 256) + `a)`, grammar.CodeJSONPathTooLong, "JSON path has 257 segments", "a", ""},
		{true, `x = first(json by ` + strings.Repeat("a.", 256) + `a)`, grammar.CodeJSONPathTooLong, "JSON path has 257 segments", "a", ""},
		{true, `x = first(json)` + strings.Repeat(".a", 257), grammar.CodeJSONPathTooLong, "JSON path has 257 segments", "a", ""},
		{true, `x = first(json where a == "` + strings.Repeat("y", 70000) + `")`, grammar.CodeExprTooLong, "Expression is 70029 bytes long", "x", ""},
	}
	for _, tt := range tests {
		name := tt.src
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			var d *ast.Diagnostic
			if tt.bind {
				var b ast.Bind
				if b, d = grammar.ParseBind(tt.src, base); d == nil {
					t.Fatalf("accepted as %T", b)
				}
			} else {
				var a ast.Assert
				if a, d = grammar.ParseAssert(tt.src, base); d == nil {
					t.Fatalf("accepted as %T", a)
				}
			}
			if d.Code != tt.code || !strings.HasPrefix(d.Message, tt.msg) {
				t.Errorf("got %s %q, want %s %q", d.Code, d.Message, tt.code, tt.msg)
			}
			at := int(d.Range.Start.Offset - base.Offset)
			if at < 0 || at > len(tt.src) || int(d.Range.End.Offset-base.Offset) > len(tt.src) {
				t.Fatalf("range %+v outside the source", d.Range)
			}
			if d.Range.Start.Line != base.Line || int(d.Range.Start.Column-base.Column) != at {
				t.Errorf("position %+v does not match offset %d", d.Range.Start, at)
			}
			if !strings.HasPrefix(tt.src[at:], tt.at) {
				t.Errorf("diagnostic starts at %q, want at %q", clip(tt.src[at:]), tt.at)
			}
			if d.Detail != tt.detail && tt.detail != "" {
				t.Errorf("detail = %q, want %q", d.Detail, tt.detail)
			}
			// A "did you mean" comes with the fix that writes the name in
			// place of the word at fault.
			if want, ok := strings.CutPrefix(tt.detail, "did you mean "); ok {
				want = strings.Trim(want, `"?`)
				if len(d.Fixes) != 1 || len(d.Fixes[0].Edits) != 1 || d.Fixes[0].Edits[0].NewText != want || d.Fixes[0].Edits[0].Range != d.Range {
					t.Errorf("fixes = %+v, want one writing %q over the diagnostic's range", d.Fixes, want)
				} else if got := int(d.Range.End.Offset - d.Range.Start.Offset); got != len(tt.at) {
					t.Errorf("the fix replaces %d bytes, want %q", got, tt.at)
				}
			} else if len(d.Fixes) != 0 {
				t.Errorf("unexpected fixes %+v", d.Fixes)
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// TestSelectionKeepsOldForms: a word followed by `(` was a rejection
// before selections, and the forms that parsed still parse the same.
func TestSelectionKeepsOldForms(t *testing.T) {
	for _, src := range []string{`json.first == "x("`, `json.a matches /first\(/`, `body contains "max(x)"`} {
		a, d := grammar.ParseAssert(src, base)
		if d != nil {
			t.Fatalf("%q: %v", src, d)
		}
		if _, ok := a.(*ast.SelectionAssert); ok {
			t.Errorf("%q read as a selection", src)
		}
	}
	for _, src := range []string{`first = json.a`, `max = body match /max\((\d+)\)/`} {
		b, d := grammar.ParseBind(src, base)
		if d != nil {
			t.Fatalf("%q: %v", src, d)
		}
		if got := fmt.Sprintf("%T", b); got == "*ast.SelectionBind" {
			t.Errorf("%q read as a selection", src)
		}
	}
}
