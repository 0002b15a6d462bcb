package calibrate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/calibrate"
	"github.com/reelier/reelier/tool"
)

// weather answers like a live server: the conditions are stable, the
// temperature and the reading time change with every call, and a sensor
// id is present only on the first call.
type weather struct{ n int }

func (*weather) Effect() ast.Effect { return ast.EffectRead }

func (w *weather) Call(context.Context, []byte) (*tool.Observation, error) {
	w.n++
	sensor := ""
	if w.n == 1 {
		sensor = `,"sensor":"s-1"`
	}
	body := fmt.Sprintf(`{"conditions":"Sunny","temperature":%d,"read_at":"t%d","count":3%s}`, 30+w.n, w.n, sensor)
	return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: body}, nil
}

// sum answers with text that repeats what it was sent.
type sum struct{}

func (sum) Effect() ast.Effect { return ast.EffectRead }

func (sum) Call(_ context.Context, args []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: "The sum is " + string(args)}, nil
}

const skillText = `---
name: weather-sum
description: Calibration fixture
---

### Step 1 — Get the weather
- intent: Read the weather
- action: get_weather {"city": "Oslo"}
- assert: status == 200
- assert: json.conditions == "Sunny"
- assert: json.temperature == 31
- assert: json.sensor == "s-1"
- assert: json.read_at matches /^t1$/
- assert: json.count == 4
- bind: temperature = json.temperature
- effect: read

### Step 2 — Add four degrees
- intent: Add
- action: get-sum {"a": "{{temperature}}", "b": 4}
- assert: status == 200
- assert: body contains "The sum is"
- assert: body contains "31,"
- effect: read

### Step 3 — Write it down
- intent: Write
- action: write_note {"text": "done"}
- assert: status == 200
- effect: idempotent-write

## Changelog

- 2026-11-30 — compiled from weather.jsonl (3 calls, 3 steps)
`

func TestMeasureAndApply(t *testing.T) {
	skill, diags := grammar.Parse("w.skill.md", []byte(skillText))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	w := &weather{}
	rep := calibrate.Measure(context.Background(), skill, calibrate.Options{Runs: 3, Run: replay.Options{
		Tools: tool.Registry{"get_weather": w, "get-sum": sum{}, "write_note": sum{}},
	}})
	if w.n != 3 {
		t.Fatalf("the weather tool was called %d times; want one call a run", w.n)
	}
	changes := map[string]string{}
	for _, c := range rep.Changes {
		changes[fmt.Sprintf("%d %s", c.Step, c.Before)] = c.After
	}
	want := map[string]string{
		"1 json.temperature == 31":      "json.temperature is number",
		"1 json.sensor == \"s-1\"":      "", // missing in later runs: removed
		"1 json.read_at matches /^t1$/": "json.read_at is string",
		"2 body contains \"31,\"":       "",
	}
	for k, after := range want {
		got, ok := changes[k]
		if !ok || got != after {
			t.Errorf("change for %s: %q (present %v); want %q", k, got, ok, after)
		}
	}
	if len(rep.Changes) != len(want) {
		t.Errorf("changes %+v; want exactly %d", rep.Changes, len(want))
	}
	// json.count == 4 fails in every run: a real failure, not a volatile
	// value, so it is reported and kept.
	if len(rep.Warnings) != 1 || rep.Warnings[0].Assert != "json.count == 4" || rep.Warnings[0].Failed != 3 {
		t.Errorf("warnings %+v", rep.Warnings)
	}
	if fmt.Sprint(rep.Unreached) != "[3]" || rep.Reached[1] != 3 || rep.Reached[3] != 0 {
		t.Errorf("reached %v, unreached %v; the write step is refused without --allow-writes", rep.Reached, rep.Unreached)
	}
	if rep.Held != 4 {
		t.Errorf("held %d; want 4 (two status asserts, the conditions, the first contains)", rep.Held)
	}
	if !calibrate.Apply(skill, rep, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("Apply changed nothing")
	}
	out := string(format.Source(skill))
	for _, line := range []string{
		"- assert: json.conditions == \"Sunny\"\n",
		"- assert: json.temperature is number\n",
		"- assert: json.read_at is string\n",
		"- assert: json.count == 4\n",
		"- 2026-12-02 — calibrated over 3 runs: 4 check(s) loosened where the value changed from run to run (steps 1, 2)\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("calibrated skill lacks %q:\n%s", line, out)
		}
	}
	for _, gone := range []string{"json.sensor", `"31,"`, "matches /^t1$/"} {
		if strings.Contains(out, gone) {
			t.Errorf("calibrated skill still has %q", gone)
		}
	}
	if _, diags := grammar.Parse("w.skill.md", []byte(out)); len(diags) > 0 {
		t.Errorf("calibrated skill does not parse: %v", diags)
	}
}

func TestNothingToLoosen(t *testing.T) {
	skill, _ := grammar.Parse("s.skill.md", []byte(strings.Replace(skillText, "- assert: json.temperature == 31\n", "", 1)))
	for _, st := range skill.Steps {
		var keep []*ast.AssertField
		for _, a := range st.Asserts {
			if s := format.Assert(a.Expr); strings.Contains(s, "status") || strings.Contains(s, "Sunny") {
				keep = append(keep, a)
			}
		}
		st.Asserts = keep
	}
	rep := calibrate.Measure(context.Background(), skill, calibrate.Options{Run: replay.Options{
		Tools: tool.Registry{"get_weather": &weather{}, "get-sum": sum{}, "write_note": sum{}},
	}})
	if rep.Runs != calibrate.DefaultRuns || len(rep.Changes) != 0 || len(rep.Warnings) != 0 {
		t.Errorf("report %+v; want nothing to change over the default %d runs", rep, calibrate.DefaultRuns)
	}
	before := string(format.Source(skill))
	if calibrate.Apply(skill, rep, time.Now()) || string(format.Source(skill)) != before {
		t.Error("Apply changed a skill with nothing to loosen")
	}
}

// readings answers a list whose newest reading changes with every call.
type readings struct{ n int }

func (*readings) Effect() ast.Effect { return ast.EffectRead }

func (r *readings) Call(context.Context, []byte) (*tool.Observation, error) {
	r.n++
	body := fmt.Sprintf(`{"items":[{"id":"a","t":%d},{"id":"b","t":1}]}`, 10+r.n)
	return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: body}, nil
}

// TestCalibrateSelection: a selection's value that changes from run to run
// becomes a type assert on the same selection; a selection a run cannot
// evaluate is a warning, never loosened.
func TestCalibrateSelection(t *testing.T) {
	src := `---
name: readings
description: Calibration fixture
---

### Step 1 — Read
- intent: Read
- action: get_readings {}
- assert: max(json.items by t).t == 11
- assert: only(json.items where id == "z").t == 1
- assert: count(json.items) == 2
- effect: read
`
	skill, diags := grammar.Parse("r.skill.md", []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	rep := calibrate.Measure(context.Background(), skill, calibrate.Options{Runs: 3, Run: replay.Options{
		Tools: tool.Registry{"get_readings": &readings{}},
	}})
	if len(rep.Changes) != 1 || rep.Changes[0].Before != "max(json.items by t).t == 11" || rep.Changes[0].After != "max(json.items by t).t is number" {
		t.Errorf("changes %+v, want the max loosened to its type", rep.Changes)
	}
	if len(rep.Warnings) != 1 || rep.Warnings[0].Assert != `only(json.items where id == "z").t == 1` ||
		!strings.Contains(rep.Warnings[0].Why, "no element of json.items (2) is kept") {
		t.Errorf("warnings %+v, want one for the only() no run could evaluate", rep.Warnings)
	}
	if rep.Held != 1 {
		t.Errorf("held %d, want 1 (the count)", rep.Held)
	}
}
