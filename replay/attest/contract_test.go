package attest_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/testkit/testutil"
)

// jsonFields are the JSON names of a struct's fields.
func jsonFields(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TestPredicateContract holds SPEC.md §14's signed receipt table to the
// predicate's structs: every field of each is a row marked with its place,
// and every row is a field.
func TestPredicateContract(t *testing.T) {
	rows := testutil.SpecTables(t)["The signed receipt"]
	if len(rows) == 0 {
		t.Fatal(`SPEC.md has no "The signed receipt (contract)" table`)
	}
	spec := map[string][]string{}
	for _, r := range rows {
		for _, where := range strings.Split(r[1], ",") {
			where = strings.TrimSpace(where)
			spec[where] = append(spec[where], strings.Trim(r[0], "`"))
		}
	}
	code := map[string][]string{
		"predicate": jsonFields(attest.Predicate{}),
		"step":      jsonFields(attest.Step{}),
		"tool":      jsonFields(attest.Tool{}),
		"server":    jsonFields(attest.Server{}),
	}
	for where, want := range code {
		got := spec[where]
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SPEC.md's %s rows %q, the struct's fields %q", where, got, want)
		}
	}
	if len(spec) != len(code) {
		t.Errorf("SPEC.md marks rows %d ways, the code has %d structs", len(spec), len(code))
	}
}
