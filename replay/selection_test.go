package replay

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// Selection nodes built by hand, as the parser would build them.

func tpath(s string) ast.Path {
	if s == "" {
		return ast.Path{}
	}
	var p ast.Path
	for _, seg := range strings.Split(s, ".") {
		idx := -1
		if n, err := strconv.Atoi(seg); err == nil && n >= 0 && seg[0] != '+' {
			idx = n
		}
		p.Elements = append(p.Elements, ast.PathElement{Name: seg, Index: idx})
	}
	return p
}

// tstr is a string value; each {{name}} in it becomes a variable hole.
func tstr(s string) *ast.String {
	v := &ast.String{Value: s}
	for at := 0; ; {
		i := strings.Index(s[at:], "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[at+i:], "}}")
		if j < 0 {
			break
		}
		start, end := at+i, at+i+j+2
		name := s[start+2 : end-2]
		v.Holes = append(v.Holes, &ast.Hole{Kind: ast.HoleVar, Name: name, Written: name, Start: start, End: end})
		at = end
	}
	return v
}

func tnum(s string) *ast.Number { return &ast.Number{Raw: s} }

func cond(key string, op ast.CondOp, v ast.Value) *ast.Condition {
	return &ast.Condition{Key: tpath(key), Op: op, Value: v}
}

func condMatches(key, re string) *ast.Condition {
	return &ast.Condition{Key: tpath(key), Op: ast.CondMatches, Pattern: re}
}

// tsel is a selection: src is "json", "json.<path>", "lines" or
// "lines /<regex>/".
type tsel struct {
	pick  ast.Pick
	src   string
	where []*ast.Condition
	by    string
	as    ast.Ordering
	sep   *string
	field string
}

func (t tsel) node() *ast.Selection {
	s := &ast.Selection{Pick: t.pick, Where: t.where, Order: t.as, Field: tpath(t.field)}
	switch {
	case t.src == "lines":
		s.Source.Kind = ast.SourceLines
	case strings.HasPrefix(t.src, "lines /"):
		s.Source.Kind = ast.SourceLines
		s.Source.Pattern = strings.TrimSuffix(strings.TrimPrefix(t.src, "lines /"), "/")
	case t.src == "json":
	default:
		s.Source.Path = tpath(strings.TrimPrefix(t.src, "json."))
	}
	if t.by != "" {
		s.By, s.HasBy = tpath(t.by), true
	}
	if t.sep != nil {
		s.Sep, s.HasSep = *t.sep, true
	}
	return s
}

func sp(s string) *string { return &s }

const items = `{"items": [
 {"id": "a", "name": "file10", "size": 30, "modified": "2026-01-05T10:00:00Z", "version": "v1.10.0", "tags": ["x"], "price": "3.50"},
 {"id": "b", "name": "file2", "size": 10, "modified": "2026-01-07", "version": "v1.9.2", "tags": ["y", "x"], "price": "12"},
 {"id": "c", "name": "file1", "size": 20, "modified": "2026-01-06 09:30", "version": "1.10.0-rc.1", "tags": [], "price": "-1e1"},
 {"id": "d", "name": "File3", "modified": "2026-01-04T23:00:00-05:00", "version": "2.0.0-alpha", "price": "7"}
]}`

// TestSelection evaluates every pick, ordering and error against a body.
func TestSelection(t *testing.T) {
	mixed := `{"items": [{"k": 1}, {"k": "2"}, {"k": 3}]}`
	ties := `{"items": [{"id": "a", "m": "2026-01-05"}, {"id": "b", "m": "2026-01-06"}, {"id": "c", "m": "2026-01-06T00:00:00Z"}]}`
	tests := []struct {
		name string
		body string
		sel  tsel
		vars map[string]any
		want string // the value as JSON; "" with err set
		err  string // a substring of the error
		miss bool   // the trailing path is absent
	}{
		// Picks in document order.
		{name: "first", body: items, sel: tsel{pick: ast.PickFirst, src: "json.items", field: "id"}, want: `"a"`},
		{name: "last", body: items, sel: tsel{pick: ast.PickLast, src: "json.items", field: "id"}, want: `"d"`},
		{name: "first where", body: items, sel: tsel{pick: ast.PickFirst, src: "json.items", where: []*ast.Condition{cond("size", ast.CondGt, tnum("15"))}, field: "id"}, want: `"a"`},
		{name: "last where", body: items, sel: tsel{pick: ast.PickLast, src: "json.items", where: []*ast.Condition{cond("size", ast.CondGt, tnum("15"))}, field: "id"}, want: `"c"`},
		{name: "whole element", body: `{"xs": [1, 2, 3]}`, sel: tsel{pick: ast.PickLast, src: "json.xs"}, want: `3`},
		{name: "root array", body: `[{"id": 1}, {"id": 2}]`, sel: tsel{pick: ast.PickLast, src: "json", field: "id"}, want: `2`},
		{name: "only", body: items, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("c"))}, field: "name"}, want: `"file1"`},
		{name: "only of none", body: items, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("z"))}},
			err: "only: no element of json.items (4) is kept by the where clause"},
		{name: "only of several", body: items, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("tags", ast.CondContains, tstr("x"))}},
			err: "only: 2 elements are kept, not one (the first two are json.items.0 and json.items.1)"},
		{name: "first of empty", body: `{"items": []}`, sel: tsel{pick: ast.PickFirst, src: "json.items"}, err: "first: json.items is an empty array"},
		{name: "trailing path absent", body: items, sel: tsel{pick: ast.PickLast, src: "json.items", field: "size"}, miss: true},

		// Conditions.
		{name: "missing key is false for !=", body: items, sel: tsel{pick: ast.PickCount, src: "json.items", where: []*ast.Condition{cond("size", ast.CondNe, tnum("10"))}}, want: `2`},
		{name: "and", body: items, sel: tsel{pick: ast.PickCount, src: "json.items", where: []*ast.Condition{cond("size", ast.CondGe, tnum("10")), cond("size", ast.CondLe, tnum("20"))}}, want: `2`},
		{name: "< needs numbers", body: items, sel: tsel{pick: ast.PickCount, src: "json.items", where: []*ast.Condition{cond("id", ast.CondLt, tnum("5"))}}, want: `0`},
		{name: "matches", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", where: []*ast.Condition{condMatches("name", `^file\d$`)}, field: "id"}, want: `"b,c"`},
		{name: "contains substring", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", where: []*ast.Condition{cond("name", ast.CondContains, tstr("le1"))}, field: "id"}, want: `"a,c"`},
		{name: "not contains array", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", where: []*ast.Condition{cond("tags", ast.CondNotContains, tstr("x"))}, field: "id"}, want: `"c"`},
		{name: "it", body: `{"xs": ["a", "bb", "cc"]}`, sel: tsel{pick: ast.PickOnly, src: "json.xs", where: []*ast.Condition{cond("it", ast.CondEq, tstr("bb"))}}, want: `"bb"`},
		{name: "hole filled", body: items, vars: map[string]any{"want": "b"}, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("{{want}}"))}, field: "size"}, want: `10`},
		{name: "hole keeps its type", body: items, vars: map[string]any{"n": jsondata.Number("20")}, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("size", ast.CondEq, tstr("{{n}}"))}, field: "id"}, want: `"c"`},
		{name: "hole inside text", body: items, vars: map[string]any{"n": "1"}, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("name", ast.CondEq, tstr("file{{n}}"))}, field: "id"}, want: `"c"`},
		{name: "unbound hole", body: items, sel: tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("{{nobody}}"))}},
			err: "where id ==: Unbound template variable {{nobody}}"},
		{name: "bad condition regex", body: items, sel: tsel{pick: ast.PickCount, src: "json.items", where: []*ast.Condition{condMatches("name", `(`)}}, err: "where name matches: invalid regex /(/"},

		// Orderings.
		{name: "by number", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", where: []*ast.Condition{cond("size", ast.CondGt, tnum("0"))}, by: "size", field: "id"}, want: `"a"`},
		{name: "min by number", body: items, sel: tsel{pick: ast.PickMin, src: "json.items", where: []*ast.Condition{cond("size", ast.CondGt, tnum("0"))}, by: "size", field: "id"}, want: `"b"`},
		{name: "number from strings", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", by: "price", as: ast.OrderNumber, field: "id"}, want: `"b"`},
		{name: "min number from strings", body: items, sel: tsel{pick: ast.PickMin, src: "json.items", by: "price", as: ast.OrderNumber, field: "id"}, want: `"c"`},
		{name: "text by default for strings", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", by: "price", field: "id"}, want: `"d"`},
		{name: "by date", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", by: "modified", as: ast.OrderDate, field: "id"}, want: `"b"`},
		{name: "min by date with zone", body: items, sel: tsel{pick: ast.PickMin, src: "json.items", by: "modified", as: ast.OrderDate, field: "id"}, want: `"d"`},
		{name: "by version", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", by: "version", as: ast.OrderVersion, field: "id"}, want: `"d"`},
		{name: "version pre-release before release", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", by: "version", as: ast.OrderVersion, field: "version"},
			want: `"v1.9.2,1.10.0-rc.1,v1.10.0,2.0.0-alpha"`},
		{name: "by name", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", by: "name", as: ast.OrderName, field: "name"}, want: `"File3,file1,file2,file10"`},
		{name: "by text", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", by: "name", as: ast.OrderText, field: "name"}, want: `"File3,file1,file10,file2"`},
		{name: "first by is lowest", body: items, sel: tsel{pick: ast.PickFirst, src: "json.items", by: "name", as: ast.OrderName, field: "id"}, want: `"d"`},
		{name: "last by is highest", body: items, sel: tsel{pick: ast.PickLast, src: "json.items", by: "name", as: ast.OrderName, field: "id"}, want: `"a"`},
		{name: "max of scalars", body: `{"xs": [3, 10, 2]}`, sel: tsel{pick: ast.PickMax, src: "json.xs"}, want: `10`},
		{name: "min of strings", body: `{"xs": ["b", "a", "c"]}`, sel: tsel{pick: ast.PickMin, src: "json.xs"}, want: `"a"`},
		{name: "max of objects needs by", body: items, sel: tsel{pick: ast.PickMax, src: "json.items"},
			err: "max: json.items.0's key is an object"},
		{name: "by key missing", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", by: "size"},
			err: "by size: json.items.3 has no size"},
		{name: "by key mixed types", body: mixed, sel: tsel{pick: ast.PickMax, src: "json.items", by: "k"},
			err: "by k: the keys are of two types (json.items.0's is a number, json.items.1's a string)"},
		{name: "by key wrong for ordering", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", by: "name", as: ast.OrderDate},
			err: `by name as date: json.items.0.name is a string "file10", not an RFC 3339 / ISO 8601 date`},
		{name: "by key not a version", body: `{"xs": [{"v": "1.2"}, {"v": "x"}]}`, sel: tsel{pick: ast.PickMax, src: "json.xs", by: "v", as: ast.OrderVersion},
			err: `by v as version: json.xs.1.v is a string "x", not a version`},
		{name: "by number not a number", body: `{"xs": [{"v": "1.2"}, {"v": "1.2.3"}]}`, sel: tsel{pick: ast.PickMin, src: "json.xs", by: "v", as: ast.OrderNumber},
			err: `json.xs.1.v is a string "1.2.3", not a number`},
		{name: "tie for max", body: ties, sel: tsel{pick: ast.PickMax, src: "json.items", by: "m", as: ast.OrderDate, field: "id"},
			err: `two elements tie for max m: json.items.1 and json.items.2 (both "2026-01-06") — add a where or a finer key`},
		{name: "tie for min", body: `{"xs": [{"n": 2}, {"n": 1.0}, {"n": 1}]}`, sel: tsel{pick: ast.PickMin, src: "json.xs", by: "n"},
			err: `two elements tie for min n: json.xs.1 and json.xs.2`},
		{name: "ties are fine for first", body: ties, sel: tsel{pick: ast.PickFirst, src: "json.items", by: "m", as: ast.OrderDate, field: "id"}, want: `"a"`},
		{name: "tie for last goes to the later", body: ties, sel: tsel{pick: ast.PickLast, src: "json.items", by: "m", as: ast.OrderDate, field: "id"}, want: `"c"`},
		{name: "where keeps away a missing key", body: items, sel: tsel{pick: ast.PickMax, src: "json.items", where: []*ast.Condition{cond("size", ast.CondGe, tnum("0"))}, by: "size", field: "name"}, want: `"file10"`},

		// Aggregates.
		{name: "count", body: items, sel: tsel{pick: ast.PickCount, src: "json.items"}, want: `4`},
		{name: "count empty", body: `{"items": []}`, sel: tsel{pick: ast.PickCount, src: "json.items"}, want: `0`},
		{name: "sum", body: `{"xs": [{"a": 10.10}, {"a": 20.20}, {"a": 0.3}]}`, sel: tsel{pick: ast.PickSum, src: "json.xs", field: "a"}, want: `30.60`},
		{name: "sum integers", body: `{"xs": [1, 2, 39]}`, sel: tsel{pick: ast.PickSum, src: "json.xs"}, want: `42`},
		{name: "sum with exponent", body: `{"xs": [1e2, 5]}`, sel: tsel{pick: ast.PickSum, src: "json.xs"}, want: `105`},
		{name: "sum of none", body: `{"xs": []}`, sel: tsel{pick: ast.PickSum, src: "json.xs", field: "a"}, want: `0`},
		{name: "sum of a string", body: `{"xs": [{"a": 1}, {"a": "2"}]}`, sel: tsel{pick: ast.PickSum, src: "json.xs", field: "a"},
			err: `sum: json.xs.1.a is a string "2", not a number`},
		{name: "sum of a missing field", body: `{"xs": [{"a": 1}, {"b": 2}]}`, sel: tsel{pick: ast.PickSum, src: "json.xs", field: "a"},
			err: `sum: json.xs.1 has no a`},
		{name: "join", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", field: "id"}, want: `"a,b,c,d"`},
		{name: "join sep", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", sep: sp(" | "), field: "id"}, want: `"a | b | c | d"`},
		{name: "join numbers as written", body: `{"xs": [1.50, 2e3]}`, sel: tsel{pick: ast.PickJoin, src: "json.xs"}, want: `"1.50,2e3"`},
		{name: "join by order", body: items, sel: tsel{pick: ast.PickJoin, src: "json.items", by: "modified", as: ast.OrderDate, field: "id"}, want: `"d,a,c,b"`},
		{name: "join of a boolean", body: `{"xs": ["a", true]}`, sel: tsel{pick: ast.PickJoin, src: "json.xs"},
			err: `join: json.xs.1 is a boolean true, not a string or a number`},
		{name: "join none", body: `{"xs": []}`, sel: tsel{pick: ast.PickJoin, src: "json.xs"}, want: `""`},

		// Sources.
		{name: "absent source", body: `{"data": {"rows": []}, "meta": 1}`, sel: tsel{pick: ast.PickFirst, src: "json.data.items"},
			err: "json.data.items is not in the result: json.data is an object with no items (its members: rows)"},
		{name: "source through a scalar", body: `{"data": 3}`, sel: tsel{pick: ast.PickFirst, src: "json.data.items"},
			err: "json.data.items is not in the result: json.data is a number 3, which has no members"},
		{name: "source not an array", body: `{"items": {"a": 1}}`, sel: tsel{pick: ast.PickFirst, src: "json.items"},
			err: `json.items is an object {"a":1}, not an array`},
		{name: "lines", body: "one\r\n\r\n  \ntwo\nthree", sel: tsel{pick: ast.PickJoin, src: "lines", sep: sp("+")}, want: `"one+two+three"`},
		{name: "last line", body: "one\ntwo\n", sel: tsel{pick: ast.PickLast, src: "lines"}, want: `"two"`},
		{name: "lines regex captures", body: "report-2026-01-03.txt 12\nnotes\nreport-2026-01-09.txt 7\nreport-2026-01-05.txt 30\n",
			sel: tsel{pick: ast.PickMax, src: `lines /^(?<file>report-(\d{4}-\d\d-\d\d)\.txt) (\d+)$/`, by: "2", as: ast.OrderDate, field: "file"}, want: `"report-2026-01-09.txt"`},
		{name: "lines regex group number", body: "a 3\nb 9\nc 1\n",
			sel: tsel{pick: ast.PickMin, src: `lines /^(\w) (\d+)$/`, by: "2", as: ast.OrderNumber, field: "1"}, want: `"c"`},
		{name: "named and unnamed groups numbered in order", body: "a 1 x\nb 2 y\n",
			sel: tsel{pick: ast.PickJoin, src: `lines /^(?<k>\w) (\d) (?<t>\w)$/`, field: "2"}, want: `"1,2"`},
		{name: "named group by number", body: "a 1 x\nb 2 y\n",
			sel: tsel{pick: ast.PickJoin, src: `lines /^(?<k>\w) (\d) (?<t>\w)$/`, field: "3"}, want: `"x,y"`},
		{name: "named group by name", body: "a 1 x\nb 2 y\n",
			sel: tsel{pick: ast.PickJoin, src: `lines /^(?<k>\w) (\d) (?<t>\w)$/`, field: "k", sep: sp("")}, want: `"ab"`},
		{name: "a group that took no part is missing", body: "a\nb 2\n",
			sel: tsel{pick: ast.PickCount, src: `lines /^(\w)(?: (\d))?$/`, where: []*ast.Condition{cond("2", ast.CondNe, tstr("9"))}}, want: `1`},
		{name: "lines regex whole match", body: "x=1\ny\nx=2\n", sel: tsel{pick: ast.PickJoin, src: `lines /x=\d/`, field: "0"}, want: `"x=1,x=2"`},
		{name: "lines regex matches nothing", body: "a\nb\n", sel: tsel{pick: ast.PickOnly, src: `lines /^z/`},
			err: "only: no line of the body matches /^z/"},
		{name: "blank body", body: " \r\n\n", sel: tsel{pick: ast.PickLast, src: "lines"}, err: "last: the body has no line that is not blank"},
		{name: "lines only names lines", body: "ok 1\nok 2\n", sel: tsel{pick: ast.PickOnly, src: `lines /ok (\d)/`},
			err: "(the first two are line 1 and line 2)"},
		{name: "lines where", body: "- a (open)\n- b (closed)\n- c (open)\n",
			sel: tsel{pick: ast.PickCount, src: `lines /^- (\w) \((\w+)\)$/`, where: []*ast.Condition{cond("2", ast.CondEq, tstr("open"))}}, want: `2`},
		{name: "lines bad regex", body: "a", sel: tsel{pick: ast.PickFirst, src: `lines /(/`}, err: "invalid regex /(/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newScope()
			for k, v := range tc.vars {
				env.set(k, v)
			}
			e := &evaluation{obs: &tool.Observation{Status: 200, Body: tc.body}, fill: &filler{env: env}}
			v, found, err := e.selectValue(tc.sel.node())
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q (value %s)", err, tc.err, jsondata.String(v))
				}
			case err != nil:
				t.Fatalf("error %v", err)
			case tc.miss:
				if found {
					t.Fatalf("found %s, want the trailing path absent", jsondata.String(v))
				}
			case !found:
				t.Fatalf("not found, want %s", tc.want)
			default:
				if got := jsondata.String(v); got != tc.want {
					t.Fatalf("got %s, want %s", got, tc.want)
				}
			}
			if len(e.failures) > 0 {
				t.Fatalf("failures: %v", e.failures)
			}
		})
	}
}

// TestSelectionNotJSON: a JSON source on a body that is not JSON is
// reported once for the step, as the other JSON forms are.
func TestSelectionNotJSON(t *testing.T) {
	sel := tsel{pick: ast.PickFirst, src: "json.items"}.node()
	e := &evaluation{obs: &tool.Observation{Body: "not json"}}
	e.assert(&ast.SelectionAssert{Sel: sel, Kind: ast.SelIs, Type: ast.TypeSet})
	e.bind(&ast.SelectionBind{Name: "x", Sel: sel})
	if len(e.failures) != 1 || !strings.Contains(e.failures[0].Message, "body is not valid JSON") {
		t.Fatalf("failures %+v, want one about the body", e.failures)
	}
}

// TestSelectionAssertsAndBinds: the assert forms and the bind, holding and
// failing, with the failure's expected and observed.
func TestSelectionAssertsAndBinds(t *testing.T) {
	newest := tsel{pick: ast.PickMax, src: "json.items", by: "modified", as: ast.OrderDate, field: "id"}
	tests := []struct {
		name     string
		a        ast.Assert
		b        ast.Bind
		expected string // "" when it holds
		observed string
		message  string // a substring of the message
		bound    string
	}{
		{name: "== holds", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelCompare, Op: ast.OpEq, Value: tstr("b")}},
		{name: "== fails", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelCompare, Op: ast.OpEq, Value: tstr("a")},
			expected: `== "a"`, observed: `"b"`},
		{name: "== hole", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelCompare, Op: ast.OpEq, Value: tstr("{{prev}}")}},
		{name: "count >", a: &ast.SelectionAssert{Sel: tsel{pick: ast.PickCount, src: "json.items"}.node(), Kind: ast.SelCompare, Op: ast.OpGt, Value: tnum("3")}},
		{name: "count == fails", a: &ast.SelectionAssert{Sel: tsel{pick: ast.PickCount, src: "json.items"}.node(), Kind: ast.SelCompare, Op: ast.OpEq, Value: tnum("0")},
			expected: "== 0", observed: "4"},
		{name: "is string", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelIs, Type: ast.TypeString}},
		{name: "is number fails", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelIs, Type: ast.TypeNumber},
			expected: "number", observed: `string "b"`},
		{name: "matches", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelMatches, Pattern: `^[a-d]$`}},
		{name: "matches fails", a: &ast.SelectionAssert{Sel: newest.node(), Kind: ast.SelMatches, Pattern: `^z`},
			expected: "a string matching /^z/", observed: `"b"`},
		{name: "error is a failure", a: &ast.SelectionAssert{Sel: tsel{pick: ast.PickMax, src: "json.items", by: "size"}.node(), Kind: ast.SelIs, Type: ast.TypeSet},
			message: "by size: json.items.3 has no size"},
		{name: "bind", b: &ast.SelectionBind{Name: "x", Sel: newest.node()}, bound: `"b"`},
		{name: "bind count", b: &ast.SelectionBind{Name: "n", Sel: tsel{pick: ast.PickCount, src: "json.items"}.node()}, bound: `4`},
		{name: "bind missing field", b: &ast.SelectionBind{Name: "x", Sel: tsel{pick: ast.PickLast, src: "json.items", field: "size"}.node()},
			expected: "a value at .size in the picked element", observed: notFound, message: "the picked element has no size"},
		{name: "bind error", b: &ast.SelectionBind{Name: "x", Sel: tsel{pick: ast.PickOnly, src: "json.items"}.node()},
			message: "only: 4 elements are kept, not one (the first two are json.items.0 and json.items.1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newScope()
			env.set("prev", "b")
			e := &evaluation{obs: &tool.Observation{Status: 200, Body: items}, fill: &filler{env: env}}
			if tc.a != nil {
				e.assert(tc.a)
			} else {
				e.bind(tc.b)
			}
			fails := tc.expected != "" || tc.message != ""
			if !fails {
				if len(e.failures) > 0 {
					t.Fatalf("failed: %+v", e.failures)
				}
				if tc.b != nil && (len(e.binds) != 1 || jsondata.String(e.binds[0].value) != tc.bound) {
					t.Fatalf("binds %+v, want %s", e.binds, tc.bound)
				}
				return
			}
			if len(e.failures) != 1 {
				t.Fatalf("failures %+v, want one", e.failures)
			}
			f := e.failures[0]
			if f.Expected != tc.expected || (tc.expected != "" && f.Observed != tc.observed) {
				t.Errorf("expected %q observed %q, want %q and %q", f.Expected, f.Observed, tc.expected, tc.observed)
			}
			if !strings.Contains(f.Message, tc.message) {
				t.Errorf("message %q, want it to contain %q", f.Message, tc.message)
			}
			if len(e.binds) > 0 {
				t.Errorf("a failed bind bound %+v", e.binds)
			}
		})
	}
}

// TestCheckUnboundHole: outside a run (Check) a condition's variable is
// unbound, and the failure names it.
func TestCheckUnboundHole(t *testing.T) {
	sel := tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("{{order}}"))}}.node()
	fs := Check(&tool.Observation{Body: items}, []ast.Assert{&ast.SelectionAssert{Sel: sel, Kind: ast.SelIs, Type: ast.TypeSet}}, nil)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "{{order}}") {
		t.Fatalf("failures %+v, want one naming {{order}}", fs)
	}
}

// TestOrderings holds each ordering's comparison to pairs.
func TestOrderings(t *testing.T) {
	tests := []struct {
		order ast.Ordering
		a, b  any
		want  int
	}{
		{ast.OrderNumber, jsondata.Number("2"), jsondata.Number("10"), -1},
		{ast.OrderNumber, "2.50", jsondata.Number("2.5"), 0},
		{ast.OrderNumber, " -3 ", "1e-3", -1},
		{ast.OrderNumber, "+4", "4", 0},
		{ast.OrderDate, "2026-01-05", "2026-01-05T00:00:00Z", 0},
		{ast.OrderDate, "2026-01-05 10:00", "2026-01-05T09:59:59Z", 1},
		{ast.OrderDate, "2026-01-05T10:00:00+02:00", "2026-01-05T09:00:00Z", -1},
		{ast.OrderDate, "2026-01-05T10:00:00.5Z", "2026-01-05T10:00:00.25Z", 1},
		{ast.OrderDate, "2026-01-05t10:00:00z", "2026-01-05T10:00:00Z", 0},
		{ast.OrderDate, "2026-01-05T10:00", "2026-01-05 10:00:00", 0},
		{ast.OrderVersion, "v1.10.0", "v1.9.2", 1},
		{ast.OrderVersion, "1.2", "1.2.0", 0},
		{ast.OrderVersion, "1.0.0-rc.1", "1.0.0", -1},
		{ast.OrderVersion, "1.0.0-alpha", "1.0.0-alpha.1", -1},
		{ast.OrderVersion, "1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
		{ast.OrderVersion, "1.0.0-beta.2", "1.0.0-beta.11", -1},
		{ast.OrderVersion, "1.0.0+build.5", "1.0.0", 0},
		{ast.OrderVersion, "V2", jsondata.Number("1.5"), 1},
		{ast.OrderVersion, "1.99999999999999999999999", "1.100000000000000000000000", -1},
		{ast.OrderName, "file2", "file10", -1},
		{ast.OrderName, "a01", "a1", -1},
		{ast.OrderName, "a1b", "a1", 1},
		{ast.OrderName, "x99999999999999999999999999", "x100000000000000000000000000", -1},
		{ast.OrderText, "file2", "file10", 1},
		{ast.OrderText, "B", "a", -1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %v %v", tc.order, tc.a, tc.b), func(t *testing.T) {
			a, b := orderKey{v: tc.a}, orderKey{v: tc.b}
			if err := a.read(tc.order); err != nil {
				t.Fatal(err)
			}
			if err := b.read(tc.order); err != nil {
				t.Fatal(err)
			}
			c := comparer(tc.order)
			if got := c(&a, &b); got != tc.want {
				t.Errorf("compare = %d, want %d", got, tc.want)
			}
			if got := c(&b, &a); got != -tc.want {
				t.Errorf("reversed compare = %d, want %d", got, -tc.want)
			}
		})
	}
	for _, bad := range []struct {
		order ast.Ordering
		v     any
	}{
		{ast.OrderNumber, "12abc"}, {ast.OrderNumber, "1."}, {ast.OrderNumber, true},
		{ast.OrderDate, "yesterday"}, {ast.OrderDate, "2026-13-01"}, {ast.OrderDate, jsondata.Number("20260105")},
		{ast.OrderVersion, "1..2"}, {ast.OrderVersion, "1.0-"}, {ast.OrderVersion, "latest"},
		{ast.OrderName, nil}, {ast.OrderText, jsondata.Number("1")},
	} {
		k := orderKey{v: bad.v}
		err := k.read(bad.order)
		if bad.order == ast.OrderText && err == nil {
			continue // text reads a number as it is written
		}
		if err == nil {
			t.Errorf("%s read %#v", bad.order, bad.v)
		}
	}
}

// bigItems is a JSON array of n objects with a date, a number and a name.
func bigItems(n int) string {
	var b strings.Builder
	b.WriteString(`{"items": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": "it-%d", "n": %d, "name": "file%d", "at": "2026-01-%02dT%02d:%02d:%02dZ", "v": "v1.%d.%d"}`,
			i, (i*7919)%n, i, 1+i%28, i%24, (i/24)%60, (i/1440)%60, i/100, i%100)
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestSelectionLarge evaluates selections over 100,000 elements: every
// pick, each ordering, the lines of a large text.
func TestSelectionLarge(t *testing.T) {
	const n = 100_000
	body := bigItems(n)
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "row %d size %d\n", i, (i*7919)%n)
	}
	tests := []struct {
		body string
		sel  tsel
		want string
	}{
		{body, tsel{pick: ast.PickCount, src: "json.items"}, "100000"},
		{body, tsel{pick: ast.PickMax, src: "json.items", by: "n", field: "n"}, "99999"},
		{body, tsel{pick: ast.PickMin, src: "json.items", by: "n", as: ast.OrderNumber, field: "n"}, "0"},
		{body, tsel{pick: ast.PickLast, src: "json.items", by: "name", as: ast.OrderName, field: "name"}, `"file99999"`},
		{body, tsel{pick: ast.PickFirst, src: "json.items", by: "v", as: ast.OrderVersion, field: "v"}, `"v1.0.0"`},
		{body, tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("it-4242"))}, field: "name"}, `"file4242"`},
		{body, tsel{pick: ast.PickSum, src: "json.items", field: "n"}, "4999950000"},
		{body, tsel{pick: ast.PickCount, src: "json.items", where: []*ast.Condition{condMatches("name", `7$`)}}, "10000"},
		{lines.String(), tsel{pick: ast.PickMax, src: `lines /^row (\d+) size (\d+)$/`, by: "2", as: ast.OrderNumber, field: "1"}, `"` + strconv.Itoa(findRow(n)) + `"`},
	}
	for _, tc := range tests {
		e := &evaluation{obs: &tool.Observation{Body: tc.body}}
		v, _, err := e.selectValue(tc.sel.node())
		if err != nil {
			t.Fatalf("%s: %v", tc.sel.pick, err)
		}
		if got := jsondata.String(v); got != tc.want {
			t.Errorf("%s by %s: got %s, want %s", tc.sel.pick, tc.sel.by, got, tc.want)
		}
	}
	// A join in a by order sorts: still n log n.
	e := &evaluation{obs: &tool.Observation{Body: body}}
	v, _, err := e.selectValue(tsel{pick: ast.PickJoin, src: "json.items", by: "at", as: ast.OrderDate, field: "id"}.node())
	if s, _ := v.(string); err != nil || strings.Count(s, ",") != n-1 {
		t.Fatalf("join: %v, %d separators", err, strings.Count(s, ","))
	}
}

// findRow is the row whose size is n-1 in TestSelectionLarge's text.
func findRow(n int) int {
	for i := range n {
		if (i*7919)%n == n-1 {
			return i
		}
	}
	return -1
}

// BenchmarkSelection measures selections over 100,000 elements (the body
// is parsed once, outside the loop, as a step's expressions share it).
func BenchmarkSelection(b *testing.B) {
	const n = 100_000
	body := bigItems(n)
	obs := &tool.Observation{Body: body}
	if _, err := obs.JSON(); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		sel  tsel
	}{
		{"max-by-number", tsel{pick: ast.PickMax, src: "json.items", by: "n", field: "id"}},
		{"max-by-date", tsel{pick: ast.PickMax, src: "json.items", by: "at", as: ast.OrderDate, field: "id"}},
		{"min-by-version", tsel{pick: ast.PickMin, src: "json.items", by: "v", as: ast.OrderVersion, field: "id"}},
		{"only-where", tsel{pick: ast.PickOnly, src: "json.items", where: []*ast.Condition{cond("id", ast.CondEq, tstr("it-4242"))}, field: "id"}},
		{"join-by-name", tsel{pick: ast.PickJoin, src: "json.items", by: "name", as: ast.OrderName, field: "id"}},
		{"sum", tsel{pick: ast.PickSum, src: "json.items", field: "n"}},
	} {
		sel := bc.sel.node()
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e := &evaluation{obs: obs}
				if _, _, err := e.selectValue(sel); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSum: exact decimal sums, the int64 path and its overflow to the
// exact one, and exponents through float64.
func TestSum(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[10.10, 20.20, 0.3]`, `30.60`},
		{`[-1.5, 0.25]`, `-1.25`},
		{`[-0.05, 0.01]`, `-0.04`},
		{`[0.1, 0.2]`, `0.3`},
		{`[9223372036854775807, 1]`, `9223372036854775808`},
		{`[123456789012345678901234567890, 1]`, `123456789012345678901234567891`},
		{`[0.1234567890123456789, 1]`, `1.1234567890123456789`},
		{`[1e2, 5]`, `105`},
		{`[1.5e-1, 0.5]`, `0.65`},
		{`[]`, `0`},
	}
	for _, tc := range tests {
		e := &evaluation{obs: &tool.Observation{Body: `{"xs": ` + tc.in + `}`}}
		v, _, err := e.selectValue(tsel{pick: ast.PickSum, src: "json.xs"}.node())
		if err != nil || jsondata.String(v) != tc.want {
			t.Errorf("sum %s = %s (%v), want %s", tc.in, jsondata.String(v), err, tc.want)
		}
	}
}

// FuzzOrderKeys reads any two strings under every ordering: nothing
// panics, and where both read, the comparison is a total order's — a key
// equals itself, and swapping the keys flips the sign.
func FuzzOrderKeys(f *testing.F) {
	for _, seed := range [][2]string{
		{"2026-01-05", "2026-01-05T10:00:00+02:00"}, {"v1.10.0-rc.1", "1.10.0"}, {"file2", "file10"},
		{"1e3", "-2.5"}, {"a01", "a1"}, {"1.0.0-alpha.beta", "1.0.0-alpha.1"}, {"2026-01-05 10:00", "2026-01-05t10:00:00z"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		for _, order := range ast.Orderings {
			a, b := orderKey{v: x}, orderKey{v: y}
			if a.read(order) != nil || b.read(order) != nil {
				continue
			}
			c := comparer(order)
			if c(&a, &a) != 0 || c(&b, &b) != 0 {
				t.Fatalf("%s: a key does not equal itself (%q, %q)", order, x, y)
			}
			if ab, ba := c(&a, &b), c(&b, &a); ab != -ba {
				t.Fatalf("%s: compare(%q, %q) = %d but compare(%q, %q) = %d", order, x, y, ab, y, x, ba)
			}
		}
	})
}

// TestSelectionBudget: a selection whose regexes run past its time budget
// fails, naming how far it got, instead of holding the run.
func TestSelectionBudget(t *testing.T) {
	defer func(b time.Duration) { selectionBudget = b }(selectionBudget)
	selectionBudget = 0
	var lines strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&lines, "row %d\n", i)
	}
	e := &evaluation{obs: &tool.Observation{Body: lines.String()}}
	_, _, err := e.selectValue(tsel{pick: ast.PickCount, src: `lines /^row (\d+)$/`}.node())
	if err == nil || !strings.Contains(err.Error(), "took longer than 0s over the first 1023 lines") {
		t.Errorf("lines: %v", err)
	}
	e = &evaluation{obs: &tool.Observation{Body: bigItems(3000)}}
	_, _, err = e.selectValue(tsel{pick: ast.PickCount, src: "json.items", where: []*ast.Condition{condMatches("name", `7$`)}}.node())
	if err == nil || !strings.Contains(err.Error(), "where: the conditions took longer than 0s over 1023 of 3000 elements of json.items") {
		t.Errorf("where: %v", err)
	}
}

// TestSelectionRedactsByPlace: a value quoted in a selection's failure is
// blanked when the member it sits under names a secret, as the JSON
// forms' failures are.
func TestSelectionRedactsByPlace(t *testing.T) {
	body := `{"xs": [{"token": "s3cr3t-value-1234"}, {"token": "s3cr3t-value-1234"}]}`
	for _, sel := range []tsel{
		{pick: ast.PickMax, src: "json.xs", by: "token", as: ast.OrderDate},
		{pick: ast.PickMax, src: "json.xs", by: "token"},
		{pick: ast.PickSum, src: "json.xs", field: "token"},
	} {
		e := &evaluation{obs: &tool.Observation{Body: body}}
		_, _, err := e.selectValue(sel.node())
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "json.xs.") {
			t.Errorf("%s by %s: %v", sel.pick, sel.by, err)
		}
	}
}
