package replay

import (
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool/jsondata"
)

// args parses action arguments the way the grammar does for a skill file.
func args(t *testing.T, src string) ast.Value {
	t.Helper()
	v, d := grammar.ParseArgs(src, ast.Pos{Line: 1, Column: 1})
	if d != nil {
		t.Fatalf("ParseArgs(%s): %s", src, d.Message)
	}
	return v
}

func mustParse(t *testing.T, s string) any {
	t.Helper()
	v, err := jsondata.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFill(t *testing.T) {
	env := newScope()
	env.set("id", "bk_1")
	env.set("tricky", "{{id}} and {{today}}")
	env.set("n", mustParse(t, `42`))
	env.set("obj", mustParse(t, `{"z":1,"a":[true,null]}`))
	env.set("nothing", nil)
	f := filler{env: env, today: dayOf(time.Date(2026, 7, 18, 23, 59, 59, 0, time.UTC))}
	tests := []struct{ name, in, want string }{
		{"no holes", `{"url": "https://x/a", "n": 1.50, "b": true, "z": null}`, `{"url":"https://x/a","n":1.50,"b":true,"z":null}`},
		{"nested at any depth", `{"a": [{"b": {"c": ["x/{{id}}"]}}]}`, `{"a":[{"b":{"c":["x/bk_1"]}}]}`},
		{"keys untouched", `{"{{id}}": "{{id}}"}`, `{"{{id}}":"bk_1"}`},
		{"bound value not re-expanded", `{"q": "{{tricky}}"}`, `{"q":"{{id}} and {{today}}"}`},
		{"number inside a string", `{"u": "/items/{{n}}/x"}`, `{"u":"/items/42/x"}`},
		{"a whole-leaf hole keeps the number's type", `{"n": "{{n}}"}`, `{"n":42}`},
		{"a whole-leaf hole keeps an object", `{"o": "{{obj}}"}`, `{"o":{"z":1,"a":[true,null]}}`},
		{"a whole-leaf hole keeps null", `{"o": "{{nothing}}"}`, `{"o":null}`},
		{"a whole-leaf string hole stays a string", `{"s": "{{id}}"}`, `{"s":"bk_1"}`},
		{"spaces make it a longer string", `{"n": " {{n}}"}`, `{"n":" 42"}`},
		{"object inside a string as JSON text", `{"o": "o={{obj}}"}`, `{"o":"o={\"z\":1,\"a\":[true,null]}"}`},
		{"array element", `["{{n}}", "{{n}}x"]`, `[42,"42x"]`},
		{"several holes", `"{{id}}-{{n}}-{{id}}"`, `"bk_1-42-bk_1"`},
		{"today", `{"d": "{{today}}"}`, `{"d":"2026-07-18"}`},
		{"today offsets", `["{{today-7d}}", "{{today+30d}}", "{{today-365d}}", "{{today+365d}}"]`, `["2026-07-11","2026-08-17","2025-07-18","2027-07-18"]`},
		{"date with time suffix", `"{{today-7d}}T09:30:00Z"`, `"2026-07-11T09:30:00Z"`},
		{"escapes survive", `{"s": "a\"b\\c\n{{id}}"}`, `{"s":"a\"b\\c\nbk_1"}`},
		{"not a hole", `{"s": "{{ }} {{1x}} {x}"}`, `{"s":"{{ }} {{1x}} {x}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.fill(nil, args(t, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("fill(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestFillErrors(t *testing.T) {
	f := filler{env: newScope(), today: dayOf(time.Date(2026, 7, 18, 0, 0, 0, 0, time.UTC))}
	tests := []struct{ in, want string }{
		{`{"a": ["{{missing}}"]}`, "Unbound template variable {{missing}}"},
		{`"{{today+0d}}"`, "Computed date var {{today+0d}} has an offset of 0 days — only 1-365 is supported"},
		{`"{{today-0d}}"`, "Computed date var {{today-0d}} has an offset of 0 days — only 1-365 is supported"},
		{`"{{today+366d}}"`, "Computed date var {{today+366d}} has an offset of 366 days — only 1-365 is supported"},
		{`"{{today-400d}}"`, "Computed date var {{today-400d}} has an offset of 400 days — only 1-365 is supported"},
		{`"from {{today+3}}"`, "Malformed computed date var {{today+3}} — the computed dates are {{today}}, {{today-Nd}} and {{today+Nd}}, with N from 1 to 365"},
		{`"{{ today - 7d }}"`, "Malformed computed date var {{today - 7d}} — the computed dates are {{today}}, {{today-Nd}} and {{today+Nd}}, with N from 1 to 365"},
	}
	for _, tt := range tests {
		_, err := f.fill(nil, args(t, tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("fill(%s) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestFillMalformedHoleOffsets(t *testing.T) {
	f := filler{env: newScope()}
	bad := &ast.String{Value: "ab", Holes: []*ast.Hole{{Kind: ast.HoleToday, Start: 1, End: 9}}}
	if _, err := f.fill(nil, bad); err == nil {
		t.Error("a hole outside its string filled without error")
	}
	if _, err := f.fill(nil, nil); err == nil {
		t.Error("a nil value filled without error")
	}
}

// TestComputedDates pins {{today±Nd}} across month, year and leap-year
// boundaries, from a fixed clock.
func TestComputedDates(t *testing.T) {
	tests := []struct {
		now  time.Time
		hole string
		want string
	}{
		{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "{{today-1d}}", "2026-02-28"},
		{time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC), "{{today-1d}}", "2028-02-29"},
		{time.Date(2028, 2, 28, 12, 0, 0, 0, time.UTC), "{{today+1d}}", "2028-02-29"},
		{time.Date(2028, 2, 28, 12, 0, 0, 0, time.UTC), "{{today+2d}}", "2028-03-01"},
		{time.Date(2100, 2, 28, 12, 0, 0, 0, time.UTC), "{{today+1d}}", "2100-03-01"}, // not a leap year
		{time.Date(2000, 2, 28, 12, 0, 0, 0, time.UTC), "{{today+1d}}", "2000-02-29"}, // a leap year
		{time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), "{{today+1d}}", "2026-02-01"},
		{time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), "{{today+1d}}", "2027-01-01"},
		{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "{{today-1d}}", "2025-12-31"},
		{time.Date(2028, 12, 31, 0, 0, 0, 0, time.UTC), "{{today-365d}}", "2028-01-01"},
		{time.Date(2026, 7, 18, 0, 0, 0, 0, time.UTC), "{{today+365d}}", "2027-07-18"},
		// The clock's zone does not matter: the date is the UTC date.
		{time.Date(2026, 7, 18, 23, 30, 0, 0, time.FixedZone("UTC-5", -5*3600)), "{{today}}", "2026-07-19"},
		{time.Date(2026, 7, 19, 1, 0, 0, 0, time.FixedZone("UTC+9", 9*3600)), "{{today}}", "2026-07-18"},
	}
	for _, tt := range tests {
		f := filler{env: newScope(), today: dayOf(tt.now)}
		got, err := f.fill(nil, args(t, `"`+tt.hole+`"`))
		if err != nil {
			t.Fatal(err)
		}
		if want := `"` + tt.want + `"`; string(got) != want {
			t.Errorf("%s at %s = %s, want %s", tt.hole, tt.now, got, want)
		}
	}
}
