package runtime_test

import (
	"context"
	"testing"

	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/internal/testutil"
	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/runlog"
)

// FuzzReplay replays any skill that parses against any response body:
// nothing may panic, every step gets a record, and the totals always agree
// with the outcomes.
func FuzzReplay(f *testing.F) {
	for _, c := range testutil.Corpus(f, "valid") {
		f.Add(c.Src, []byte(itemsBody))
	}
	f.Add([]byte(skill(step{action: `t {"a": "{{x}}"}`, binds: []string{"x = json.a"}})), []byte(`{"a":"{{x}}"}`))
	f.Add([]byte(skill(step{action: `t {"a": "x"}`, binds: []string{"x = json.a"}}, step{action: `t {"b c": ["{{x}}", "«redacted:A»"]}`})), []byte(`{"a":"«redacted»"}`))
	f.Fuzz(func(t *testing.T, src, body []byte) {
		s, diags := grammar.Parse("fuzz.skill.md", src)
		if diags.HasErrors() {
			return
		}
		o := runtime.Options{Tools: runtime.Registry{}, Clock: fixedClock, Yes: true, Vars: map[string]string{"base": "http://127.0.0.1:1"}}
		for _, st := range s.Steps {
			if st.Action != nil {
				o.Tools[st.Action.Tool] = instantTool{string(body)}
			}
		}
		runtime.DryRun(s, o)
		rec := runtime.Run(context.Background(), s, o).Record
		if len(rec.Steps) != len(s.Steps) || rec.Totals != runlog.CountSteps(rec.Steps) {
			t.Fatalf("record %+v does not match %d steps", rec, len(s.Steps))
		}
		if _, err := runlog.Marshal(&rec); err != nil {
			t.Fatal(err)
		}
	})
}
