package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
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
			res := replay.Run(context.Background(), s, a.options())
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
	plan := replay.DryRun(s, a.options())
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
	for _, in := range replay.Inputs(s) {
		got = append(got, fmt.Sprintf("%s@%d:%d", in.Name, in.Step, in.Range.Start.Line))
	}
	want := []string{"customer@1:11", "expected@1:11", "x@1:12", "tag@2:19"}
	if !slices.Equal(got, want) {
		t.Errorf("inputs %v, want %v", got, want)
	}
}

// TestSelectionFollowsTheWorld replays the shapes issue #33 measured — a
// listing whose newest file is summarised, a search whose only match is
// updated, a total sent on — against worlds that grew, re-sorted or
// changed: a rule follows the world where a position would not, and stops
// where the agent would stop.
func TestSelectionFollowsTheWorld(t *testing.T) {
	tests := []struct {
		name, body string
		bind       string
		want       string // the value step 2 is sent; "" when step 1 diverges
		fail       string // step 1's failure, when it diverges
	}{
		{name: "newest log, as recorded", body: "report-2026-01-03.txt\nreport-2026-01-05.txt\n",
			bind: `file = max(lines /^(report-(\d{4}-\d\d-\d\d)\.txt)$/ by 2 as date).1`, want: "report-2026-01-05.txt"},
		{name: "newest log, a newer file appears", body: "report-2026-01-03.txt\nreport-2026-01-05.txt\nreport-2026-01-09.txt\n",
			bind: `file = max(lines /^(report-(\d{4}-\d\d-\d\d)\.txt)$/ by 2 as date).1`, want: "report-2026-01-09.txt"},
		{name: "newest log, an older file listed above", body: "report-2025-12-30.txt\nreport-2026-01-03.txt\nreport-2026-01-05.txt\n",
			bind: `file = max(lines /^(report-(\d{4}-\d\d-\d\d)\.txt)$/ by 2 as date).1`, want: "report-2026-01-05.txt"},
		{name: "the only lead, an older one sorts first", body: `{"entities":[{"name":"Lead-0042","type":"lead","customer":"Initech"},{"name":"Lead-0088","type":"lead","customer":"Acme"}]}`,
			bind: `lead = only(json.entities where customer == "Acme").name`, want: "Lead-0088"},
		{name: "the only lead, already two", body: `{"entities":[{"name":"Lead-0088","customer":"Acme"},{"name":"Lead-0090","customer":"Acme"}]}`,
			bind: `lead = only(json.entities where customer == "Acme").name`,
			fail: `lead = only(json.entities where customer == "Acme").name: only: 2 elements are kept, not one (the first two are json.entities.0 and json.entities.1) — add a where that tells them apart`},
		{name: "the only lead, none yet", body: `{"entities":[]}`,
			bind: `lead = only(json.entities where customer == "Acme").name`,
			fail: `lead = only(json.entities where customer == "Acme").name: only: json.entities is an empty array`},
		{name: "overdue total, one more overdue", body: `{"invoices":[{"id":"i1","due":12.50,"state":"overdue"},{"id":"i2","due":7.25,"state":"paid"},{"id":"i3","due":20.10,"state":"overdue"}]}`,
			bind: `total = sum(json.invoices where state == "overdue").due`, want: "32.60"},
		{name: "overdue ids, joined", body: `{"invoices":[{"id":"i3","state":"overdue"},{"id":"i1","state":"overdue"},{"id":"i2","state":"paid"}]}`,
			bind: `ids = join(json.invoices where state == "overdue" by id sep ";").id`, want: "i1;i3"},
		{name: "lowest stock in a text table, re-sorted", body: "| sku | stock |\n| A-1 | 40 |\n| B-7 | 3 |\n| C-2 | 12 |\n",
			bind: `sku = min(lines /^\| (\S+) \| (\d+) \|$/ by 2 as number).1`, want: "B-7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := strings.SplitN(tt.bind, " ", 2)[0]
			s := parse(t, skill(
				step{action: `list {}`, asserts: []string{"status == 200"}, binds: []string{tt.bind}},
				step{action: `use {"v": "{{` + name + `}}"}`, asserts: []string{"status == 200"}},
			))
			o := replay.Options{Tools: tool.Registry{"list": instantTool{tt.body}, "use": echoTool{}}, Clock: fixedClock}
			res := replay.Run(context.Background(), s, o)
			if tt.fail != "" {
				if got := res.Record.Steps[0].Failures; !slices.Equal(got, []string{tt.fail}) {
					t.Fatalf("step 1 failures %q, want %q", got, tt.fail)
				}
				if res.Record.Steps[1].Outcome != runlog.Skipped {
					t.Errorf("step 2 %s: the replay went on where the agent would have stopped", res.Record.Steps[1].Outcome)
				}
				return
			}
			if !res.Record.Passed {
				t.Fatalf("run failed: %+v", res.Record.Steps)
			}
			var args struct{ V json.RawMessage }
			if err := json.Unmarshal(res.Steps[1].Action.Args, &args); err != nil || strings.Trim(string(args.V), `"`) != tt.want {
				t.Errorf("step 2 was sent %s, want %s", res.Steps[1].Action.Args, tt.want)
			}
		})
	}
}
