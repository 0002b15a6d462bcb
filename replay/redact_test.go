package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
)

// Secrets for the redaction tests, assembled at run time so no credential
// literal sits in the source.
var (
	rtPassword = "Hunter2-" + "runtime"
	rtEnvValue = "env-value-" + "R9kWq2"
	rtGitHub   = "ghp_" + strings.Repeat("rTm4", 9)
)

// TestFailuresRedacted: what a failed step's record and result keep of an
// observed value, a filled action or a tool's error is redacted as the
// trace would redact it — by the value's place (a password member), its
// shape, and the values REELIER_REDACT names — while the step still fails
// for the real reason.
func TestFailuresRedacted(t *testing.T) {
	red := redact.NewRedactor([]string{"RT_SECRET"}, func(n string) (string, bool) { return rtEnvValue, n == "RT_SECRET" })
	tests := []struct {
		name   string
		answer string // the tool's JSON body
		err    error  // or the tool's error
		step   step
		want   string
	}{
		{name: "a password member", answer: `{"password":"` + rtPassword + `"}`,
			step: step{action: `t {}`, asserts: []string{`json.password == "x"`}},
			want: `json.password == "x" failed: got "«redacted»"`},
		{name: "an object holding one", answer: `{"user":{"name":"ann","password":"` + rtPassword + `"}}`,
			step: step{action: `t {}`, asserts: []string{`json.user is string`}},
			want: `json.user is string failed: got object {"name":"ann","password":"«redacted»"}`},
		{name: "an array under a credential member", answer: `{"password":["` + rtPassword + `"]}`,
			step: step{action: `t {}`, asserts: []string{`json.password.0 == "x"`}},
			want: `json.password.0 == "x" failed: got "«redacted»"`},
		{name: "a string holding JSON", answer: `{"title":"{\"password\":\"` + rtPassword + `\"}"}`,
			step: step{action: `t {}`, asserts: []string{`json.title == "x"`}},
			want: `json.title == "x" failed: got "{\"password\":\"«redacted»\"}"`},
		{name: "a credential shape", answer: `{"id":"` + rtGitHub + `"}`,
			step: step{action: `t {}`, asserts: []string{`json.id matches /^x/`}},
			want: `json.id matches /^x/ failed: got "«redacted»"`},
		{name: "a named value", answer: `{"note":"` + rtEnvValue + `"}`,
			step: step{action: `t {}`, asserts: []string{`json.note == "x"`}},
			want: `json.note == "x" failed: got "«redacted:RT_SECRET»"`},
		{name: "a body that is not JSON", answer: "Authorization: Bearer " + rtGitHub + "\nnot json",
			step: step{action: `t {}`, asserts: []string{`json.id is set`}},
			want: `Assertion needs JSON body but body is not valid JSON: invalid character 'A' looking for beginning of value; body starts "Authorization: «redacted»\nnot json"`},
		{name: "a refused filled action", answer: `{}`,
			step: step{action: `t {"user": "ann", "password": "{{pw}}"}`, effect: "destructive"},
			want: `Refusing to execute destructive step without --yes. Filled action: t {"user":"ann","password":"«redacted»"}`},
		{name: "a tool error quoting its answer", err: errors.New(`the server said {"token":"` + rtPassword + `"}`),
			step: step{action: `t {}`},
			want: `Tool execution failed: the server said {"token":"«redacted»"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
				if tt.err != nil {
					return nil, tt.err
				}
				return body(tt.answer), nil
			}}
			res := run(t, skill(tt.step), replay.Options{Tools: tool.Registry{"t": fake}, Vars: map[string]string{"pw": rtPassword}, Redactor: red})
			st := res.Record.Steps[0]
			if len(st.Failures) != 1 || st.Failures[0] != tt.want {
				t.Errorf("failures %q\nwant [%q]", st.Failures, tt.want)
			}
			line, _ := json.Marshal(res.Record)
			sr, _ := json.Marshal(res.Steps[0].Failures)
			for _, secret := range []string{rtPassword, rtEnvValue, rtGitHub} {
				if strings.Contains(string(line), secret) || strings.Contains(string(sr), secret) {
					t.Errorf("a secret is on the record or the step result:\n%s\n%s", line, sr)
				}
			}
		})
	}
}

// TestHealFailuresRedacted: failures a Healer adds are redacted with the
// step's own, and the Divergence offers the run's redactor.
func TestHealFailuresRedacted(t *testing.T) {
	red := redact.NewRedactor([]string{"RT_SECRET"}, func(n string) (string, bool) { return rtEnvValue, n == "RT_SECRET" })
	fake := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
		return body(`{"n":1}`), nil
	}}
	var offered *redact.Redactor
	healer := healerFunc(func(_ context.Context, d *replay.Divergence) *replay.Healing {
		offered = d.Redactor()
		return &replay.Healing{Attempted: 1, Failures: []replay.Failure{{Message: "Level 1 heal failed: the model said " + rtEnvValue}}}
	})
	res := run(t, skill(step{action: `t {}`, asserts: []string{"json.n == 2"}}), replay.Options{Tools: tool.Registry{"t": fake}, Healer: healer, Redactor: red})
	want := []string{"json.n == 2 failed: got 1", "Level 1 heal failed: the model said «redacted:RT_SECRET»"}
	if got := res.Record.Steps[0].Failures; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures %q\nwant %q", got, want)
	}
	if offered != red {
		t.Errorf("the Divergence offered another redactor than the run's")
	}
}
