package mock

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/tool/jsondata"
)

// recorded makes a recorded call of tool at line with the JSON args.
func recorded(t *testing.T, line int, args string) *Recorded {
	t.Helper()
	v, err := jsondata.Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	return &Recorded{Path: "t.jsonl", Line: line, Tool: "search", Args: json.RawMessage(args), args: v}
}

func TestAnswer(t *testing.T) {
	// calls are the recorded calls of one tool, by line; each test sends
	// the calls in sent, in order, within one session, and wants the
	// answers in want: the line of the recorded call that answers,
	// "+" after it for a repeat, or "miss <line>: <differences>" for a
	// call nothing matches (the nearest call and what differs), "miss"
	// alone when the tool has no call to be near.
	type tc struct {
		name   string
		mode   Mode
		ignore []string
		calls  []string
		sent   []string
		want   []string
	}
	tests := []tc{
		{name: "exact: key order and number spelling do not matter", mode: Exact,
			calls: []string{`{"q":"tea","n":1.50,"o":{"a":1,"b":[1,2]}}`},
			sent:  []string{`{"o":{"b":[1,2],"a":1},"n":1.5,"q":"tea"}`},
			want:  []string{"1"}},
		{name: "exact: each call gets its own recorded result", mode: Exact,
			calls: []string{`{"q":"a"}`, `{"q":"b"}`},
			sent:  []string{`{"q":"b"}`, `{"q":"a"}`},
			want:  []string{"2", "1"}},
		{name: "exact: repeated identical calls in recorded order, then the last again", mode: Exact,
			calls: []string{`{"q":"a"}`, `{"q":"b"}`, `{"q":"a"}`, `{"q":"a"}`},
			sent:  []string{`{"q":"a"}`, `{"q":"a"}`, `{"q":"a"}`, `{"q":"a"}`, `{"q":"b"}`, `{"q":"b"}`},
			want:  []string{"1", "3", "4", "4+", "2", "2+"}},
		{name: "exact: a changed value names the nearest call and the path", mode: Exact,
			calls: []string{`{"q":"tea","page":1}`, `{"q":"coffee","page":2}`},
			sent:  []string{`{"q":"tea","page":2}`},
			want:  []string{`miss 1: args.page: recorded 1, got 2`}},
		{name: "exact: nearest is the one with the fewest differing paths", mode: Exact,
			calls: []string{`{"q":"x","a":1,"b":2}`, `{"q":"tea","a":1,"b":3}`},
			sent:  []string{`{"q":"tea","a":1,"b":2}`},
			want:  []string{`miss 1: args.q: recorded "x", got "tea"`}},
		{name: "exact: added, missing and retyped arguments", mode: Exact,
			calls: []string{`{"q":"tea","limit":5,"tags":["a"]}`},
			sent:  []string{`{"q":"tea","limit":"5","extra":true}`},
			want:  []string{`miss 1: args.limit: recorded 5, got "5" (number → string); args.tags: missing (recorded ["a"]); args.extra: not in the recorded call (got true)`}},
		{name: "exact: nested paths and array positions", mode: Exact,
			calls: []string{`{"filter":{"ids":["a","b"],"when":{"from":"2026-07-18"}}}`},
			sent:  []string{`{"filter":{"ids":["a","c"],"when":{"from":"2026-12-02"}}}`},
			want:  []string{`miss 1: args.filter.ids.1: recorded "b", got "c"; args.filter.when.from: recorded "2026-07-18", got "2026-12-02"`}},
		{name: "exact: a key with a dot is quoted in the path", mode: Exact,
			calls: []string{`{"a.b":1}`},
			sent:  []string{`{"a.b":2}`},
			want:  []string{`miss 1: args."a.b": recorded 1, got 2`}},
		{name: "exact: a redacted value matches any value of its type", mode: Exact,
			calls: []string{`{"key":"«redacted»","auth":"Bearer «redacted»","user":"ann"}`},
			sent:  []string{`{"key":"sk-live-123","auth":"Bearer xyz","user":"ann"}`, `{"key":5,"auth":"Bearer xyz","user":"ann"}`},
			want:  []string{"1", `miss 1: args.key: recorded "«redacted»", got 5 (string → number)`}},
		{name: "exact: a value redacted by name matches any value of its type", mode: Exact,
			calls: []string{`{"token":"«redacted:PAYMENTS_TOKEN»","keys":"«redacted:A» «redacted»"}`},
			sent:  []string{`{"token":"tok_live_4242","keys":"k1 k2"}`, `{"token":true,"keys":"k1 k2"}`},
			want:  []string{"1", `miss 1: args.token: recorded "«redacted:PAYMENTS_TOKEN»", got true (string → boolean)`}},
		{name: "exact: --ignore-arg leaves a path out on both sides", mode: Exact, ignore: []string{"args.date", "items.*.id"},
			calls: []string{`{"q":"a","date":"2026-07-18","items":[{"id":"x","n":1}]}`},
			sent:  []string{`{"q":"a","date":"2026-12-02","items":[{"id":"y","n":1}]}`, `{"q":"a","items":[{"n":1}]}`, `{"q":"b","date":"2026-07-18","items":[{"id":"x","n":1}]}`},
			want:  []string{"1", "1+", `miss 1: args.q: recorded "a", got "b"`}},
		{name: "loose: values differ, the shape matches", mode: Loose,
			calls: []string{`{"q":"tea","page":1}`},
			sent:  []string{`{"q":"coffee","page":7}`},
			want:  []string{"1"}},
		{name: "loose: the calls that differ least answer, in recorded order", mode: Loose,
			calls: []string{`{"q":"a","day":"d1"}`, `{"q":"b","day":"d1"}`, `{"q":"a","day":"d1"}`},
			sent:  []string{`{"q":"b","day":"d2"}`, `{"q":"a","day":"d2"}`, `{"q":"a","day":"d2"}`, `{"q":"a","day":"d2"}`, `{"q":"z","day":"d2"}`},
			want:  []string{"2", "1", "3", "3+", "3+"}},
		{name: "loose: a missing key, a new key or a changed type is a miss", mode: Loose,
			calls: []string{`{"q":"tea","page":1}`},
			sent:  []string{`{"q":"tea"}`, `{"q":"tea","page":1,"x":0}`, `{"q":"tea","page":"1"}`},
			want: []string{`miss 1: args.page: missing (recorded 1)`, `miss 1: args.x: not in the recorded call (got 0)`,
				`miss 1: args.page: recorded 1, got "1" (number → string)`}},
		{name: "loose: arrays must keep their length", mode: Loose,
			calls: []string{`{"ids":["a","b"]}`},
			sent:  []string{`{"ids":["c","d"]}`, `{"ids":["a"]}`},
			want:  []string{"1", `miss 1: args.ids.1: missing (recorded "b")`}},
		{name: "arguments that are not an object", mode: Exact,
			calls: []string{`[1000,2000]`, `null`, `"plain text"`},
			sent:  []string{`[1000,2000]`, `null`, `"plain text"`, `[1000,2001]`},
			want:  []string{"1", "2", "3", `miss 1: args.1: recorded 2000, got 2001`}},
		{name: "no arguments is the empty object", mode: Exact,
			calls: []string{`{}`},
			sent:  []string{``, `{}`},
			want:  []string{"1", "1+"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &Tool{Name: "search"}
			for k, c := range tt.calls {
				tool.Calls = append(tool.Calls, recorded(t, k+1, c))
			}
			m := &Matcher{Mode: tt.mode}
			for _, s := range tt.ignore {
				p, err := ParsePath(s)
				if err != nil {
					t.Fatal(err)
				}
				m.Ignore = append(m.Ignore, p)
			}
			cur := newCursor()
			var got []string
			for _, s := range tt.sent {
				args, err := parseArgs(json.RawMessage(s))
				if err != nil {
					t.Fatal(err)
				}
				a := m.answer(tool, args, cur)
				switch {
				case a.Recorded != nil:
					g := fmt.Sprint(a.Recorded.Line)
					if a.Repeat {
						g += "+"
					}
					got = append(got, g)
				case a.Nearest != nil:
					got = append(got, fmt.Sprintf("miss %d: %s", a.Nearest.Line, strings.Join(describe(a.Differ), "; ")))
				default:
					got = append(got, "miss")
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("answers (-want +got):\n%s", d)
			}
		})
	}
}

// TestAnswerSessions: each session is answered from the first recorded
// call, whatever the others were answered.
func TestAnswerSessions(t *testing.T) {
	tool := &Tool{Name: "search", Calls: []*Recorded{recorded(t, 1, `{}`), recorded(t, 2, `{}`)}}
	m := &Matcher{Mode: Exact}
	a, b := newCursor(), newCursor()
	empty := &jsondata.Object{}
	lines := func(cur *cursor) int { return m.answer(tool, empty, cur).Recorded.Line }
	if got := []int{lines(a), lines(a), lines(b), lines(a), lines(b)}; fmt.Sprint(got) != "[1 2 1 2 2]" {
		t.Errorf("answers across two sessions: %v, want [1 2 1 2 2]", got)
	}
}

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "args.date", want: []string{"date"}},
		{in: "date", want: []string{"date"}},
		{in: "args.items.*.id", want: []string{"items", "*", "id"}},
		{in: `args."a.b".c`, want: []string{"a.b", "c"}},
		{in: `args.""`, want: []string{""}},
		{in: "args.args.x", want: []string{"args", "x"}},
		{in: "", err: "an empty path"},
		{in: "args", err: "name an argument"},
		{in: "a..b", err: "an empty segment"},
		{in: "a.", err: "ends with a dot"},
		{in: `"a`, err: "not closed"},
		{in: `"a"b`, err: "want a dot after a quoted segment"},
	}
	for _, tt := range tests {
		got, err := ParsePath(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParsePath(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal([]string(got), tt.want) {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"exact", "loose"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMode("fuzzy"); err == nil || err.Error() != `--match "fuzzy": want exact or loose` {
		t.Errorf("ParseMode(fuzzy) = %v", err)
	}
}

// FuzzParsePath: any text either parses to segments or is refused, never
// a panic; a path that parses matches itself.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"args.date", `args."a.b".c`, "a..b", `"a`, "args.items.*.id", `"\"".x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		if len(p) == 0 || !p.matches(p) {
			t.Errorf("ParsePath(%q) = %q, which does not match itself", s, p)
		}
	})
}

// FuzzAnswer: whatever arguments are sent, the matcher answers or names
// the nearest call, and never panics.
func FuzzAnswer(f *testing.F) {
	f.Add(`{"q":"tea","n":[1,{"a":null}]}`, `{"q":"tea","n":[1,{"a":false}]}`, false)
	f.Add(`[1,2]`, `"x"`, true)
	f.Fuzz(func(t *testing.T, rec, sent string, loose bool) {
		rv, err := jsondata.Parse(rec)
		if err != nil {
			return
		}
		sv, err := jsondata.Parse(sent)
		if err != nil {
			return
		}
		mode := Exact
		if loose {
			mode = Loose
		}
		tool := &Tool{Name: "x", Calls: []*Recorded{{Path: "t", Line: 1, Tool: "x", Args: json.RawMessage(rec), args: rv}}}
		a := (&Matcher{Mode: mode}).answer(tool, sv, newCursor())
		if (a.Recorded == nil) == (a.Nearest == nil) {
			t.Fatalf("answer(%s, %s): want a recorded call or a nearest one: %+v", rec, sent, a)
		}
		if a.Nearest != nil && len(a.Differ) == 0 {
			t.Fatalf("answer(%s, %s): a miss that names no difference", rec, sent)
		}
		if mode == Exact && a.Recorded != nil && !equalValues(rv, sv) && !strings.Contains(rec, "«redacted»") {
			t.Fatalf("exact answer(%s, %s) matched values that differ", rec, sent)
		}
	})
}
