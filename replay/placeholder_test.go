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

// TestRedactionPlaceholderRefused: a replay never sends a recording's
// redaction placeholder as if it were the secret. Whether the skill holds
// it literally, an input was given it, or an earlier result returned it,
// the step fails before its tool is called, as an input failure (exit 2)
// naming the step and the argument's path; the steps after it do not run.
func TestRedactionPlaceholderRefused(t *testing.T) {
	tests := []struct {
		name   string
		action string
		vars   map[string]string
		want   string
	}{
		{name: "named, literal", action: `pay {"amount": 12, "token": "«redacted:PAYMENTS_TOKEN»"}`,
			want: `Refusing to send step 2's argument token: it holds the recording's redaction placeholder «redacted:PAYMENTS_TOKEN», not a value — make it an input ({{payments_token}}) and supply it with --var, a --var-file line or REELIER_VAR_payments_token`},
		{name: "unnamed, nested in text", action: `pay {"headers": {"Authorization": "Bearer «redacted»"}}`,
			want: `Refusing to send step 2's argument headers.Authorization: it holds the recording's redaction placeholder «redacted», not a value — make it an input and supply it with --var, a --var-file line or REELIER_VAR_<name>`},
		{name: "in an array, under an odd key", action: `pay {"a b": ["x", "key «redacted» here"]}`,
			want: `Refusing to send step 2's argument ["a b"].1: it holds the recording's redaction placeholder «redacted», not a value — make it an input and supply it with --var, a --var-file line or REELIER_VAR_<name>`},
		{name: "through an input", action: `pay {"token": "{{payments_token}}"}`, vars: map[string]string{"payments_token": "«redacted:PAYMENTS_TOKEN»"},
			want: `Refusing to send step 2's argument token: it holds the recording's redaction placeholder «redacted:PAYMENTS_TOKEN», not a value — make it an input ({{payments_token}}) and supply it with --var, a --var-file line or REELIER_VAR_payments_token`},
		{name: "through a bind", action: `pay {"token": "{{session}}"}`,
			want: `Refusing to send step 2's argument token: it holds the recording's redaction placeholder «redacted», not a value — make it an input and supply it with --var, a --var-file line or REELIER_VAR_<name>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
				return body(`{"session": "«redacted»"}`), nil
			}}
			pay := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
				return body(`{"ok": true}`), nil
			}}
			src := skill(
				step{action: `login {}`, asserts: []string{"status == 200"}, binds: []string{"session = json.session"}},
				step{action: tt.action, effect: "destructive", asserts: []string{"status == 200"}},
				step{action: `login {}`},
			)
			res := run(t, src, replay.Options{Tools: tool.Registry{"login": first, "pay": pay}, Vars: tt.vars, Yes: true})
			rec := res.Record
			if pay.calls != 0 {
				t.Errorf("the tool was called %d times with a placeholder", pay.calls)
			}
			st := rec.Steps[1]
			if st.Outcome != runlog.Failed || st.Kind != runlog.KindInput {
				t.Errorf("step 2: outcome %s, kind %q; want failed, input", st.Outcome, st.Kind)
			}
			if len(st.Failures) != 1 || st.Failures[0] != tt.want {
				t.Errorf("step 2 failures %q\nwant [%q]", st.Failures, tt.want)
			}
			if rec.Passed || rec.Steps[2].Outcome != runlog.Skipped || first.calls != 1 {
				t.Errorf("passed %v, step 3 %s, login called %d times", rec.Passed, rec.Steps[2].Outcome, first.calls)
			}
		})
	}
}

// TestRedactionLookalikesSent: text that only looks like part of a
// placeholder is an ordinary value and is sent.
func TestRedactionLookalikesSent(t *testing.T) {
	for _, v := range []string{"redacted", "«redacted", "«redactedness»", "«redacted:»", "[redacted]", "«Redacted»"} {
		pay := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
			return body(`{"ok": true}`), nil
		}}
		src := skill(step{action: `pay {"note": "` + v + `"}`, asserts: []string{"status == 200"}})
		res := run(t, src, replay.Options{Tools: tool.Registry{"pay": pay}})
		if !res.Record.Passed || pay.calls != 1 {
			t.Errorf("%q: passed %v, calls %d, failures %q", v, res.Record.Passed, pay.calls, res.Record.Steps[0].Failures)
		}
		if strings.Contains(strings.Join(res.Record.Steps[0].Failures, ""), "placeholder") {
			t.Errorf("%q was taken for a placeholder", v)
		}
	}
}

// TestDryRunShowsPlaceholder: a dry run reports the step a replay would
// refuse, with the same message, and plans the others as usual.
func TestDryRunShowsPlaceholder(t *testing.T) {
	s := parse(t, skill(
		step{action: `pay {"token": "{{payments_token}}"}`},
		step{action: `pay {"auth": "Bearer «redacted»"}`},
	))
	plan := replay.DryRun(s, replay.Options{Vars: map[string]string{"payments_token": "tok_live_4242"}, Clock: fixedClock})
	if len(plan) != 2 || plan[0].Err != nil {
		t.Fatalf("plan %+v", plan)
	}
	want := `Refusing to send step 2's argument auth: it holds the recording's redaction placeholder «redacted», not a value — make it an input and supply it with --var, a --var-file line or REELIER_VAR_<name>`
	if plan[1].Err == nil || plan[1].Err.Error() != want {
		t.Errorf("step 2: %v\nwant %s", plan[1].Err, want)
	}
}
