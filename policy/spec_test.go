package policy_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// TestSpecPolicyContract holds SPEC.md's Policy tables to the code: the
// actions, and the decision record's fields on traces and run records.
func TestSpecPolicyContract(t *testing.T) {
	tables := testutil.SpecTables(t)
	col := func(table string) []string {
		var out []string
		for _, r := range tables[table] {
			out = append(out, strings.Trim(r[0], "`"))
		}
		if len(out) == 0 {
			t.Fatalf("SPEC.md has no %q contract table", table)
		}
		return out
	}
	actions := []string{string(policy.Allow), string(policy.Deny), string(policy.DryRun), string(policy.Ask)}
	if got := col("Policy actions"); !reflect.DeepEqual(got, actions) {
		t.Errorf("SPEC.md's actions %q, code %q", got, actions)
	}
	tags := func(v any) []string {
		var out []string
		ty := reflect.TypeOf(v)
		for k := 0; k < ty.NumField(); k++ {
			name, _, _ := strings.Cut(ty.Field(k).Tag.Get("json"), ",")
			out = append(out, name)
		}
		return out
	}
	inTrace, inRun := tags(trace.PolicyDecision{}), tags(runlog.PolicyDecision{})
	var all []string
	for _, r := range tables["The decision record"] {
		f := strings.Trim(r[0], "`")
		all = append(all, f)
		if strings.Contains(r[1], "trace") != slices.Contains(inTrace, f) {
			t.Errorf("field %q: SPEC.md says where %q; trace.PolicyDecision has %q", f, r[1], inTrace)
		}
		if strings.Contains(r[1], "run record") != slices.Contains(inRun, f) {
			t.Errorf("field %q: SPEC.md says where %q; runlog.PolicyDecision has %q", f, r[1], inRun)
		}
	}
	for _, f := range append(inTrace, inRun...) {
		if !slices.Contains(all, f) {
			t.Errorf("the decision field %q is not in SPEC.md's decision record table", f)
		}
	}
}
