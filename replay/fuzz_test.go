package replay_test

import (
	"context"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

// FuzzReplay replays any skill that parses against any response body:
// nothing may panic, every step gets a record, and the totals always agree
// with the outcomes.
func FuzzReplay(f *testing.F) {
	for _, c := range testutil.Corpus(f, "valid") {
		f.Add(c.Src, []byte(itemsBody))
	}
	f.Add([]byte(skill(step{action: `t {"a": "{{x}}"}`, binds: []string{"x = json.a"}})), []byte(`{"a":"{{x}}"}`))
	// Selections over JSON and over lines, feeding the next step.
	f.Add([]byte(skill(
		step{action: `t {}`, asserts: []string{`count(json.items where n > 1) >= 1`}, binds: []string{`x = max(json.items by at as date).id`, `s = join(json.items by id as name sep "|").id`}},
		step{action: `t {"a": "{{x}}"}`, asserts: []string{`only(json.items where id == "{{x}}").n is number`}, binds: []string{`t = sum(json.items).n`}},
	)), []byte(`{"items":[{"id":"a2","n":2,"at":"2026-01-05"},{"id":"a10","n":1.5,"at":"2026-01-06T10:00:00Z"}]}`))
	f.Add([]byte(skill(
		step{action: `t {}`, binds: []string{`f = last(lines /^(?<name>\S+) (\d+)$/ by 2 as number).name`, `c = count(lines)`}},
	)), []byte("a 1\r\nb 20\n\nc 3\n"))
	f.Add([]byte(skill(step{action: `t {"a": "x"}`, binds: []string{"x = json.a"}}, step{action: `t {"b c": ["{{x}}", "«redacted:A»"]}`})), []byte(`{"a":"«redacted»"}`))
	f.Fuzz(func(t *testing.T, src, body []byte) {
		s, diags := grammar.Parse("fuzz.skill.md", src)
		if diags.HasErrors() {
			return
		}
		o := replay.Options{Tools: tool.Registry{}, Clock: fixedClock, Yes: true, Vars: map[string]string{"base": "http://127.0.0.1:1"}}
		for _, st := range s.Steps {
			if st.Action != nil {
				o.Tools[st.Action.Tool] = instantTool{string(body)}
			}
		}
		replay.DryRun(s, o)
		rec := replay.Run(context.Background(), s, o).Record
		if len(rec.Steps) != len(s.Steps) || rec.Totals != runlog.CountSteps(rec.Steps) {
			t.Fatalf("record %+v does not match %d steps", rec, len(s.Steps))
		}
		if _, err := runlog.Marshal(&rec); err != nil {
			t.Fatal(err)
		}
	})
}
