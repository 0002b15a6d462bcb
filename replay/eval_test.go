package replay_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
)

// runOne runs a one-step skill against the fixture server.
func runOne(t *testing.T, a *api, s step) *replay.StepResult {
	t.Helper()
	res := replay.Run(context.Background(), parse(t, skill(s)), a.options())
	return res.Steps[0]
}

// TestAsserts evaluates every assert form, holding and failing, against a
// real response from a server on 127.0.0.1.
func TestAsserts(t *testing.T) {
	a := newAPI(t)
	tests := []struct {
		assert string
		path   string // default /items
		fail   string // "" when the assert holds
	}{
		{assert: `status == 200`},
		{assert: `status != 404`},
		{assert: `status == 201`, fail: `status == 201 failed: got 200`},
		{assert: `status == 404`, path: "/missing"},
		{assert: `status != 404`, path: "/missing", fail: `status != 404 failed: got 404`},
		{assert: `body contains "Zoë 😀"`},
		{assert: `body contains "absent"`, fail: `body contains "absent" failed (body length 209)`},
		{assert: `body not contains "absent"`},
		{assert: `body not contains "pending"`, fail: `body not contains "pending" failed (body length 209)`},
		{assert: `body contains "id=48213"`, path: "/html"},
		{assert: `json.items is array`},
		{assert: `json.count is array`, fail: `json.count is array failed: got number 2`},
		{assert: `json.count is set`},
		{assert: `json.nothing is set`, fail: `json.nothing is set failed: got null`},
		{assert: `json.absent is set`, fail: `json.absent is set failed: got (not found)`},
		{assert: `json.count is number`},
		{assert: `json.name is string`},
		{assert: `json.flag is boolean`},
		{assert: `json.nothing is null`},
		{assert: `json.absent is null`, fail: `json.absent is null failed: got (not found)`},
		{assert: `json.name is number`, fail: `json.name is number failed: got string "Zoë 😀"`},
		{assert: `json.items.0.id matches /^a\d$/`},
		{assert: `json.items.0.id matches /^b/`, fail: `json.items.0.id matches /^b/ failed: got "a1"`},
		{assert: `json.count matches /2/`, fail: `json.count matches /2/ failed: got number 2`},
		{assert: `json.name matches /(?<=Zo)ë/`}, // lookbehind: ECMAScript, not RE2
		{assert: `json.items length > 1`},
		{assert: `json.items length >= 2`},
		{assert: `json.items length < 2`, fail: `json.items length < 2 failed: got length 2`},
		{assert: `json.items length <= 2`},
		{assert: `json.name length > 5`}, // "Zoë 😀" is 6 UTF-16 units, as in JavaScript
		{assert: `json.name length < 6`, fail: `json.name length < 6 failed: got length 6`},
		{assert: `json.count length > 0`, fail: `json.count length > 0 failed: got number 2, which has no length`},
		{assert: `json.items.length > 0`, fail: `json.items.length > 0 failed: got (not found)`},
		{assert: `json.nested.length == 7`}, // a real member named length
		{assert: `json.nested.0 == "zero-key"`},
		{assert: `json.status == "pending"`},
		{assert: `json.status == "confirmed"`, fail: `json.status == "confirmed" failed: got "pending"`},
		{assert: `json.status != "confirmed"`},
		{assert: `json.price == 1.5`},
		{assert: `json.price == 1.50`},
		{assert: `json.big == 1000`},
		{assert: `json.count == "2"`, fail: `json.count == "2" failed: got 2`},
		{assert: `json.flag == true`},
		{assert: `json.flag != false`},
		{assert: `json.nothing == null`},
		{assert: `json.absent == null`, fail: `json.absent == null failed: got (not found)`},
		{assert: `json.absent != null`},
		{assert: `json.items == null`, fail: `json.items == null failed: got [{"id":"a1","n":3,"tags":["x","y"]},{"id":"b2","n":4,"tags":[]}]`},
		{assert: `json.count > 1`},
		{assert: `json.count >= 2`},
		{assert: `json.count < 2`, fail: `json.count < 2 failed: got 2`},
		{assert: `json.count <= 1.5`, fail: `json.count <= 1.5 failed: got 2`},
		{assert: `json.status > 1`, fail: `json.status > 1 failed: got "pending"`},
		{assert: `json.count > "1"`, fail: `json.count > "1" failed: got 2`},
		{assert: `json.items.0.constructor is set`, fail: `json.items.0.constructor is set failed: got (not found)`},
	}
	for _, tt := range tests {
		t.Run(tt.assert, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/items"
			}
			sr := runOne(t, a, step{action: get(path), asserts: []string{tt.assert}})
			if tt.fail == "" {
				if sr.Record.Outcome != runlog.Passed {
					t.Fatalf("outcome %s, failures %q", sr.Record.Outcome, sr.Record.Failures)
				}
				return
			}
			if sr.Record.Outcome != runlog.Failed || !slices.Equal(sr.Record.Failures, []string{tt.fail}) {
				t.Fatalf("outcome %s, failures %q; want failed with %q", sr.Record.Outcome, sr.Record.Failures, tt.fail)
			}
			if sr.Record.Why == nil || sr.Record.Why.Trigger != tt.fail {
				t.Errorf("why = %+v, want trigger %q", sr.Record.Why, tt.fail)
			}
		})
	}
}

// TestJSONAssertOnNonJSONBody: a json.* assert or bind on a body that is
// not JSON fails the step with the real parse error, reported once.
func TestJSONAssertOnNonJSONBody(t *testing.T) {
	a := newAPI(t)
	sr := runOne(t, a, step{action: get("/html"), asserts: []string{"status == 200", "json.x is set", "json.y == 1"}, binds: []string{"z = json.z"}})
	want := []string{`Assertion needs JSON body but body is not valid JSON: invalid character '<' looking for beginning of value; body starts "<html><body>Location: /done?id=48213</body></html>"`}
	if sr.Record.Outcome != runlog.Failed || !slices.Equal(sr.Record.Failures, want) {
		t.Errorf("failures %q\nwant %q", sr.Record.Failures, want)
	}
}

// TestBinds evaluates both bind forms, and checks that what they bind is
// what the next step's action receives.
func TestBinds(t *testing.T) {
	a := newAPI(t)
	tests := []struct {
		bind, path, next, fail string
	}{
		{bind: `v = json.items.1.id`, next: "/items/b2"},
		{bind: `v = json.count`, next: "/items/2"},
		{bind: `v = json.nothing`, next: "/items/null"},
		{bind: `v = json.items.0.tags`, next: `/items/["x","y"]`},
		{bind: `v = body match /id=(\d+)/`, path: "/html", next: "/items/48213"},
		{bind: `v = body match /(?<n>\d{2})(\d+)/`, path: "/html", next: "/items/48"},
		{bind: `v = json.items.5.id`, fail: `bind v = json.items.5.id failed: path not found`},
		{bind: `v = json.items.length`, fail: `bind v = json.items.length failed: path not found`},
		{bind: `v = body match /nope=(\d+)/`, path: "/html", fail: `bind v = body match /nope=(\d+)/ failed: no capture-group match`},
		{bind: `v = body match /id=\d+|(x)/`, path: "/html", fail: `bind v = body match /id=\d+|(x)/ failed: no capture-group match`},
	}
	for _, tt := range tests {
		t.Run(tt.bind, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/items"
			}
			s := parse(t, skill(
				step{action: get(path), asserts: []string{"status == 200"}, binds: []string{tt.bind}},
				step{action: `http.get {"url": "{{base}}/items/{{v}}"}`, asserts: []string{"status == 200"}},
			))
			res := replay.Run(context.Background(), s, a.options())
			if tt.fail != "" {
				if got := res.Record.Steps[0].Failures; !slices.Equal(got, []string{tt.fail}) {
					t.Errorf("failures %q, want %q", got, tt.fail)
				}
				if res.Record.Steps[1].Outcome != runlog.Skipped {
					t.Errorf("step 2 %s, want skipped", res.Record.Steps[1].Outcome)
				}
				return
			}
			if !res.Record.Passed {
				t.Fatalf("run failed: %+v", res.Record.Steps)
			}
			var args struct{ URL string }
			if err := json.Unmarshal(res.Steps[1].Action.Args, &args); err != nil || args.URL != a.URL+tt.next {
				t.Errorf("step 2 args %s, want url %s", res.Steps[1].Action.Args, a.URL+tt.next)
			}
		})
	}
}

// TestAllExpressionsEvaluated: a failing assert does not stop the asserts
// and binds after it.
func TestAllExpressionsEvaluated(t *testing.T) {
	a := newAPI(t)
	sr := runOne(t, a, step{action: get("/items"),
		asserts: []string{"status == 500", "json.count == 2", "json.count == 3"},
		binds:   []string{"x = json.nope", "y = json.count"}})
	want := []string{"status == 500 failed: got 200", "json.count == 3 failed: got 2", "bind x = json.nope failed: path not found"}
	if !slices.Equal(sr.Record.Failures, want) {
		t.Errorf("failures %q\nwant %q", sr.Record.Failures, want)
	}
	if sr.Record.Why.Trigger != want[0] {
		t.Errorf("trigger %q, want the first failure", sr.Record.Why.Trigger)
	}
	if len(sr.Failures) != 3 || sr.Failures[1].Expected != `== 3` || sr.Failures[1].Observed != "2" {
		t.Errorf("structured failures %+v", sr.Failures)
	}
}
