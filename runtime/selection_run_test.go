package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/runlog"
)

// TestSelectionRun replays selections written in skill text: a bind that
// feeds the next step, an assert whose condition takes an earlier bind,
// and the failures a run records, each naming its expression.
func TestSelectionRun(t *testing.T) {
	a := newAPI(t)
	tests := []struct {
		bind   string
		assert string // asserted in step 2, after step 1's bind
		next   string // the url step 2 is sent to
		fail1  string // step 1's failure
		fail2  string // step 2's failure
	}{
		{bind: `v = max(json.items by n).id`, next: "/items/b2"},
		{bind: `v = min(json.items by n).id`, next: "/items/a1"},
		{bind: `v = only(json.items where tags contains "x").id`, next: "/items/a1"},
		{bind: `v = count(json.items where n > 3)`, next: "/items/1"},
		{bind: `v = sum(json.items).n`, next: "/items/7"},
		{bind: `v = join(json.items by n as number sep "+").id`, next: "/items/a1+b2"},
		{bind: `v = first(json.items where id == "b2").n`, assert: `only(json.items where n == "{{v}}").id == "b2"`, next: "/items/4"},
		{bind: `v = last(json.items).id`, assert: `count(json.items where id != "{{v}}") == 2`, next: "/items/b2",
			fail2: `count(json.items where id != "{{v}}") == 2 failed: got 1`},
		{bind: `v = only(json.items).id`,
			fail1: `v = only(json.items).id: only: 2 elements are kept, not one (the first two are json.items.0 and json.items.1) — add a where that tells them apart`},
		{bind: `v = first(json.things).id`,
			fail1: `v = first(json.things).id: json.things is not in the result: json is an object with no things (its members: items, count, price, name, nothing, flag, status, nested and 1 more)`},
		{bind: `v = max(json.items by tags).id`,
			fail1: `v = max(json.items by tags).id: by tags: json.items.0's key is an array ["x","y"]; only numbers and strings have an order — write as number|date|version|name|text, or pick another key`},
		{bind: `v = last(json.items where n >= 3).missing`,
			fail1: `v = last(json.items where n >= 3).missing failed: the picked element has no missing`},
	}
	for _, tt := range tests {
		t.Run(tt.bind, func(t *testing.T) {
			second := step{action: `http.get {"url": "{{base}}/items/{{v}}"}`, asserts: []string{"status == 200"}}
			if tt.assert != "" {
				second = step{action: `http.get {"url": "{{base}}/items"}`, asserts: []string{tt.assert}}
			}
			s := parse(t, skill(step{action: get("/items"), asserts: []string{"status == 200"}, binds: []string{tt.bind}}, second))
			res := runtime.Run(context.Background(), s, a.options())
			if got := res.Record.Steps[0].Failures; tt.fail1 != "" || len(got) > 0 {
				if !slices.Equal(got, []string{tt.fail1}) {
					t.Fatalf("step 1 failures %q, want %q", got, tt.fail1)
				}
				if res.Record.Steps[1].Outcome != runlog.Skipped {
					t.Errorf("step 2 %s, want skipped", res.Record.Steps[1].Outcome)
				}
				return
			}
			if got := res.Record.Steps[1].Failures; tt.fail2 != "" || len(got) > 0 {
				if !slices.Equal(got, []string{tt.fail2}) {
					t.Fatalf("step 2 failures %q, want %q", got, tt.fail2)
				}
				return
			}
			if tt.assert != "" {
				return
			}
			var args struct{ URL string }
			if err := json.Unmarshal(res.Steps[1].Action.Args, &args); err != nil || args.URL != a.URL+tt.next {
				t.Errorf("step 2 args %s, want url %s", res.Steps[1].Action.Args, a.URL+tt.next)
			}
		})
	}
}

// TestDryRunSelections: a dry run lists what each step will pick at run
// time, leaves the picked value's holes as written, and reports a
// condition that takes a variable nothing binds, as the run would.
func TestDryRunSelections(t *testing.T) {
	a := newAPI(t)
	s := parse(t, skill(
		step{action: get("/items"), binds: []string{`newest = max(json.items by n).id`, `first = json.items.0.id`}},
		step{action: `http.get {"url": "{{base}}/items/{{newest}}"}`, asserts: []string{`only(json.items where id == "{{first}}").n > 0`}},
		step{action: get("/items"), binds: []string{`v = only(json.items where id == "{{nobody}}").n`}},
		step{action: get("/items"), asserts: []string{`count(json.items) == "{{missing}}"`}},
	))
	plan := runtime.DryRun(s, a.options())
	want := []struct {
		args, err string
		picks     []string
	}{
		{args: `{"url":"SERVER/items"}`, picks: []string{`newest = max(json.items by n).id`}},
		{args: `{"url":"SERVER/items/{{newest}}"}`},
		{err: `Unbound template variable {{nobody}} in v = only(json.items where id == "{{nobody}}").n`, picks: []string{`v = only(json.items where id == "{{nobody}}").n`}},
		{err: `Unbound template variable {{missing}} in count(json.items) == "{{missing}}"`},
	}
	for i, w := range want {
		p := plan[i]
		gotErr := ""
		if p.Err != nil {
			gotErr = p.Err.Error()
		}
		if gotErr != w.err || (w.err == "" && string(p.Action.Args) != strings.ReplaceAll(w.args, "SERVER", a.URL)) || !slices.Equal(p.Picks, w.picks) {
			t.Errorf("step %d: args %s err %q picks %q; want %+v", i+1, p.Action.Args, gotErr, p.Picks, w)
		}
	}
	if a.total() != 0 {
		t.Errorf("a dry run made %d requests", a.total())
	}
}

// TestSelectionInputs: a selection's condition or compared value that takes
// a variable no earlier step binds needs it as an input, checked before
// anything runs — the step's own binds do not count, since they are made
// after its selections are read.
func TestSelectionInputs(t *testing.T) {
	s := parse(t, skill(
		step{action: `t {}`, asserts: []string{`only(json.items where id == "{{customer}}").n == "{{expected}}"`},
			binds: []string{`x = first(json.items where name contains "{{x}}").id`, `y = last(json.items).id`}},
		step{action: `t {"a": "{{x}}"}`, binds: []string{`z = only(json.items where id == "{{y}}" and tag == "{{tag}}").id`}},
	))
	var got []string
	for _, in := range runtime.Inputs(s) {
		got = append(got, fmt.Sprintf("%s@%d:%d", in.Name, in.Step, in.Range.Start.Line))
	}
	want := []string{"customer@1:11", "expected@1:11", "x@1:12", "tag@2:19"}
	if !slices.Equal(got, want) {
		t.Errorf("inputs %v, want %v", got, want)
	}
}
