package policy_test

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/policy/engine"
)

const fromSkillSample = `---
name: triage
description: label new issues
---

### Step 1 — List the issues
- intent: find new issues
- action: list_issues {"state": "open", "limit": 20, "labels": ["new"], "filter": {"since": "{{today-7d}}"}}
- assert: status == 200
- bind: n = json.0.number
- effect: read

### Step 2 — Label one
- intent: label it
- action: add_label {"issue": "{{n}}", "label": "triage", "notify": false, "extra": null}
- assert: status == 200
- effect: idempotent-write

### Step 3 — List again
- intent: the same call, once in the policy
- action: list_issues {"state": "open", "limit": 20, "labels": ["new"], "filter": {"since": "{{today-7d}}"}}
- assert: status == 200
- effect: read
`

// TestFromSkill: the policy a skill's calls need allows each step's call
// with its shape, denies another tool, a missing or extra key and a key
// of another type; a whole-hole string takes any type.
func TestFromSkill(t *testing.T) {
	sk, diags := grammar.Parse("triage.skill.md", []byte(fromSkillSample))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out, err := policy.FromSkill(sk, "triage.skill.md", engine.CEL{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Parse("out.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Count(string(out), "- name: ") != 2 || !strings.Contains(string(out), "default: deny") {
		t.Fatalf("want two rules and default deny:\n%s", out)
	}
	list := map[string]any{"state": "open", "limit": 20.0, "labels": []any{"new"}, "filter": map[string]any{"since": "x"}}
	label := func(issue any) map[string]any {
		return map[string]any{"issue": issue, "label": "triage", "notify": false, "extra": nil}
	}
	with := func(m map[string]any, k string, v any) map[string]any {
		c := map[string]any{}
		for a, b := range m {
			c[a] = b
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	tests := []struct {
		name string
		tool string
		args map[string]any
		want policy.Action
	}{
		{"step 1 as written", "list_issues", list, policy.Allow},
		{"step 2, the hole filled with a number", "add_label", label(42.0), policy.Allow},
		{"step 2, the hole filled with a string", "add_label", label("42"), policy.Allow},
		{"another tool", "delete_issue", map[string]any{"issue": 1.0}, policy.Deny},
		{"an extra key", "list_issues", with(list, "force", true), policy.Deny},
		{"a missing key", "list_issues", with(list, "limit", nil), policy.Deny},
		{"a key of another type", "list_issues", with(list, "limit", "20"), policy.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := p.Decide(policy.Call{Tool: tt.tool, Args: tt.args}); d.Action != tt.want {
				t.Fatalf("Decide = %+v, want %s\n%s", d, tt.want, out)
			}
		})
	}
}

// FuzzFromSkill: whatever skill parses, the policy written for it loads.
func FuzzFromSkill(f *testing.F) {
	f.Add(fromSkillSample)
	f.Add("---\nname: a\ndescription: b\n---\n\n### Step 1 — x\n- intent: y\n- action: t-\"q {\"k\\\"\": [1, {\"z\": \"{{v}}\"}]}\n- effect: read\n")
	f.Fuzz(func(t *testing.T, src string) {
		sk, diags := grammar.Parse("f.skill.md", []byte(src))
		if sk == nil || diags.HasErrors() {
			return
		}
		out, err := policy.FromSkill(sk, "f.skill.md", engine.CEL{})
		if err != nil {
			t.Fatalf("FromSkill: %v", err)
		}
		if _, err := engine.Parse("out.yaml", out); err != nil {
			t.Fatalf("the policy written does not load: %v\n%s", err, out)
		}
	})
}
