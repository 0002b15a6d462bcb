package replay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
)

// instantTool answers at once with a fixed body, so a benchmark measures
// the interpreter and not the tool. Each call returns a fresh observation:
// the body is parsed every step, as in a real run.
type instantTool struct{ body string }

func (instantTool) Effect() ast.Effect { return ast.EffectRead }

func (t instantTool) Call(context.Context, []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200, Headers: map[string]string{"content-type": "application/json"}, Body: t.body}, nil
}

// BenchmarkStep is the interpreter's overhead for one step with three
// asserts and one bind (fill, gate, evaluate, record), tool time excluded.
func BenchmarkStep(b *testing.B) {
	s := parse(b, skill(step{
		action:  `list_bookings {"hotel": "{{hotel}}", "from": "{{today-7d}}", "to": "{{today}}", "page": {"size": 50}}`,
		asserts: []string{"status == 200", "json.bookings length > 0", `json.bookings.0.status == "confirmed"`},
		binds:   []string{"id = json.bookings.0.id"},
	}))
	o := replay.Options{
		Tools: tool.Registry{"list_bookings": instantTool{itemsBodyForBench}},
		Vars:  map[string]string{"hotel": "h_bergen_02"},
		Clock: fixedClock,
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := replay.Run(ctx, s, o); !res.Record.Passed {
			b.Fatal(res.Record.Steps[0].Failures)
		}
	}
}

// itemsBodyForBench is a typical small API response (about 400 bytes).
const itemsBodyForBench = `{"bookings":[{"id":"bk_1","status":"confirmed","guest":{"name":"Ada","nights":3}},` +
	`{"id":"bk_2","status":"pending","guest":{"name":"Grace","nights":1}},` +
	`{"id":"bk_3","status":"confirmed","guest":{"name":"Edsger","nights":2}}],` +
	`"page":{"size":50,"next":null},"hotel":"h_bergen_02","total":3,"currency":"NOK","updated":"2026-07-18T14:00:00Z"}`

// BenchmarkRun100Loopback replays a 100-step skill end to end with the
// builtin HTTP tool against a server on 127.0.0.1; each step carries the
// previous step's bind forward.
func BenchmarkRun100Loopback(b *testing.B) {
	a := newAPI(b)
	steps := make([]step, 100)
	steps[0] = step{action: get("/items"), asserts: []string{"status == 200"}, binds: []string{"id = json.items.0.id"}}
	for i := 1; i < len(steps); i++ {
		steps[i] = step{
			action:  `http.get {"url": "{{base}}/items/{{id}}"}`,
			asserts: []string{"status == 200", `json.status == "confirmed"`, "json.id is string"},
			binds:   []string{"id = json.id"},
		}
	}
	s := parse(b, skill(steps...))
	o := a.options()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := replay.Run(ctx, s, o); !res.Record.Passed {
			b.Fatal(res.Record.Steps)
		}
	}
}

// BenchmarkDryRun100 fills a 100-step skill without executing it.
func BenchmarkDryRun100(b *testing.B) {
	var steps []step
	for i := range 100 {
		steps = append(steps, step{action: fmt.Sprintf(`http.get {"url": "{{base}}/items/%d?from={{today-7d}}", "h": {"a": ["{{base}}"]}}`, i)})
	}
	s := parse(b, skill(steps...))
	o := replay.Options{Vars: map[string]string{"base": "http://127.0.0.1:1"}, Clock: fixedClock}
	b.ReportAllocs()
	for b.Loop() {
		if plan := replay.DryRun(s, o); len(plan) != 100 || !strings.Contains(string(plan[99].Action.Args), "items/99") {
			b.Fatal("bad plan")
		}
	}
}
