package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

func TestParseInjection(t *testing.T) {
	for _, tc := range []struct {
		in, err string
		want    runlog.Injection
	}{
		{in: "2", want: runlog.Injection{Step: 2, Kind: "error"}},
		{in: "2=error", want: runlog.Injection{Step: 2, Kind: "error"}},
		{in: "3=timeout", want: runlog.Injection{Step: 3, Kind: "timeout"}},
		{in: "1=schema", want: runlog.Injection{Step: 1, Kind: "schema"}},
		{in: "2=boom", err: `--fail "2=boom": unknown kind "boom"; the kinds are error, timeout, schema`},
		{in: "2=", err: `unknown kind ""`},
		{in: "0", err: "want a step number"},
		{in: "-1=error", err: "want a step number"},
		{in: "two", err: "want a step number"},
		{in: "=error", err: "want a step number"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := replay.ParseInjection(tc.in)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
			case err != nil || *got != tc.want:
				t.Fatalf("got %+v %v, want %+v", got, err, tc.want)
			}
		})
	}
}

func FuzzParseInjection(f *testing.F) {
	for _, s := range []string{"2", "2=error", "3=timeout", "1=schema", "x", "=", "99999999999999999999=error"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inj, err := replay.ParseInjection(s)
		if err != nil {
			return
		}
		if inj.Step < 1 || (inj.Kind != runlog.InjectError && inj.Kind != runlog.InjectTimeout && inj.Kind != runlog.InjectSchema) {
			t.Fatalf("%q read as %+v", s, inj)
		}
	})
}

func TestCheckInjection(t *testing.T) {
	sk := parse(t, skill(step{action: `t {}`}, step{action: `t {}`}, step{action: `t {}`}))
	if err := replay.CheckInjection(sk, &runlog.Injection{Step: 3, Kind: "error"}); err != nil {
		t.Fatal(err)
	}
	err := replay.CheckInjection(sk, &runlog.Injection{Step: 4, Kind: "timeout"})
	if err == nil || err.Error() != "--fail 4=timeout: the skill has no step 4; it has 3 steps (1 to 3)" {
		t.Fatalf("%v", err)
	}
}

// TestInjected: an injected failure at step 2 stands in for its call (the
// tool is called for step 1 only, never for step 2, even for a write), and
// the record keeps it.
func TestInjected(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		asserts []string
		calls   int
		failure string
		fkind   runlog.Kind
		verdict runlog.Verdict
	}{
		{kind: "error", asserts: []string{"status == 200"}, calls: 1, failure: "status == 200 failed: got 500", fkind: runlog.KindCheck, verdict: runlog.VerdictFailed},
		{kind: "error", calls: 1, failure: "Tool returned an error result: the tool failed (injected by --fail 2=error: not a real failure)", fkind: runlog.KindTool, verdict: runlog.VerdictFailed},
		{kind: "timeout", calls: 1, failure: "Tool execution failed: no answer within 30s (injected by --fail 2=timeout: not a real failure)", fkind: runlog.KindTool, verdict: runlog.VerdictFailed},
		{kind: "schema", calls: 0, verdict: runlog.VerdictFailed},
	} {
		t.Run(tc.kind+"/"+strings.Join(tc.asserts, ","), func(t *testing.T) {
			fake := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
				return body(`{"ok": true}`), nil
			}}
			src := skill(step{action: `t {}`, asserts: []string{"status == 200"}}, step{action: `t {"id": 1}`, effect: "destructive", asserts: tc.asserts})
			inj := &runlog.Injection{Step: 2, Kind: tc.kind}
			res := run(t, src, replay.Options{Tools: tool.Registry{"t": fake}, Yes: true, Inject: inj})
			rec := res.Record
			if rec.Injected == nil || *rec.Injected != *inj || rec.Verdict != tc.verdict || fake.calls != tc.calls {
				t.Fatalf("injected %+v verdict %s calls %d", rec.Injected, rec.Verdict, fake.calls)
			}
			s2 := rec.Steps[1]
			if tc.kind == "schema" {
				if rec.ToolDrift == nil || len(rec.ToolDrift.Tools) != 1 || rec.ToolDrift.Tools[0].Tool != "t" || s2.Skip != replay.SkipToolDrift {
					t.Fatalf("drift %+v, step 2 %+v", rec.ToolDrift, s2)
				}
				return
			}
			if s2.Outcome != runlog.Failed || s2.Kind != tc.fkind || s2.Failures[0] != tc.failure || s2.Write != nil {
				t.Fatalf("step 2 %+v", s2)
			}
		})
	}
}
