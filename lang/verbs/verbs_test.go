package verbs

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTableRows(t *testing.T) {
	var classes []Class
	for _, r := range Table {
		classes = append(classes, r.Class)
		if !slices.IsSorted(r.Words) {
			t.Errorf("the %s row is not sorted", r.Class)
		}
		for _, w := range r.Words {
			if got := Words(w); len(got) != 1 || got[0] != w {
				t.Errorf("%q is not one lower-case word: %q", w, got)
			}
			if Of(w) != r.Class {
				t.Errorf("Of(%q) = %s; want %s", w, Of(w), r.Class)
			}
		}
	}
	if want := []Class{Read, Write, Unsafe, Destructive, Opaque}; !slices.Equal(classes, want) {
		t.Errorf("table classes = %v; want %v", classes, want)
	}
	for _, p := range NounPhrases {
		if w := Words(p); len(w) != 2 || Of(w[0]) == None {
			t.Errorf("noun phrase %q must be two words, the first in the table", p)
		}
	}
	for _, w := range Conjunctions {
		if Of(w) != None {
			t.Errorf("conjunction %q is also a verb", w)
		}
	}
}

func TestClauses(t *testing.T) {
	tests := []struct {
		tool string
		want [][]string
	}{
		{"github.createIssue", [][]string{{"github"}, {"create", "issue"}}},
		{"get_or_create-user", [][]string{{"get"}, {"create", "user"}}},
		{"mcp__stripe__refundCharge", [][]string{{"mcp"}, {"stripe"}, {"refund", "charge"}}},
		{"HTTPGetStatus", [][]string{{"http", "get", "status"}}},
		{"fetchThenPurge", [][]string{{"fetch"}, {"purge"}}},
		{"a/b:c", [][]string{{"a"}, {"b"}, {"c"}}},
		{"1_delete-branch2", [][]string{{"delete", "branch"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Clauses(tt.tool)); diff != "" {
			t.Errorf("Clauses(%q) (-want +got):\n%s", tt.tool, diff)
		}
	}
}

func TestScan(t *testing.T) {
	tests := []struct {
		tool string
		want Match
	}{
		{"get_user", Match{Class: Read, Verb: "get", Lead: Read, LeadVerb: "get"}},
		{"bookings_list", Match{Class: Read, Verb: "list", Lead: Read, LeadVerb: "list"}},
		{"get_refund", Match{Class: Destructive, Verb: "refund", Lead: Read, LeadVerb: "get"}},
		{"fetch_delete_user", Match{Class: Destructive, Verb: "delete", Lead: Read, LeadVerb: "fetch"}},
		{"get_or_create_user", Match{Class: Write, Verb: "create", Lead: Write, LeadVerb: "create"}},
		{"merge_pr", Match{Class: Unsafe, Verb: "merge", Lead: Unsafe, LeadVerb: "merge"}},
		{"get_merge_request", Match{Class: Read, Verb: "get", Lead: Read, LeadVerb: "get"}},
		{"merge_merge_requests", Match{Class: Unsafe, Verb: "merge", Lead: Unsafe, LeadVerb: "merge"}},
		{"get_start_time", Match{Class: Read, Verb: "get", Lead: Read, LeadVerb: "get"}},
		{"http.post", Match{Class: Destructive, Verb: "post", Lead: Destructive, LeadVerb: "post"}},
		{"run_query", Match{Opaque: "run"}},
		{"execute_delete", Match{Class: Destructive, Verb: "delete", Opaque: "execute"}},
		{"list_and_run", Match{Class: Read, Verb: "list", Lead: Read, LeadVerb: "list", Opaque: "run"}},
		{"get_workflow_run", Match{Class: Read, Verb: "get", Lead: Read, LeadVerb: "get"}},
		{"get_release_by_tag", Match{Class: Read, Verb: "get", Lead: Read, LeadVerb: "get"}},
		{"add_issue_comment", Match{Class: Unsafe, Verb: "comment", Lead: Write, LeadVerb: "add"}},
		{"issue_comment_create", Match{Class: Unsafe, Verb: "comment", Lead: Unsafe, LeadVerb: "comment"}},
		{"create_or_update_file", Match{Class: Write, Verb: "create", Lead: Write, LeadVerb: "create"}},
		{"frobnicate_widget", Match{}},
	}
	for _, tt := range tests {
		if got := Scan(tt.tool); got != tt.want {
			t.Errorf("Scan(%q) = %+v; want %+v", tt.tool, got, tt.want)
		}
	}
}

func TestFloor(t *testing.T) {
	tests := []struct {
		tool string
		want Class
		verb string
	}{
		{"github.delete_issue", Destructive, "delete"},
		{"mcp__stripe__refundCharge", Destructive, "refund"},
		{"http.post", Destructive, "post"},
		{"github.add_labels", Write, "add"},
		{"merge_pr", Write, "merge"},
		{"get_or_delete", Destructive, "delete"},
		{"get_refund", None, ""},
		{"fetch_delete_user", None, ""},
		{"get_issue", None, ""},
		{"run_and_send", Destructive, "send"},
		{"run_query", None, ""},
		{"weather_forecast", None, ""},
	}
	for _, tt := range tests {
		got, verb := Scan(tt.tool).Floor()
		if got != tt.want || verb != tt.verb {
			t.Errorf("Floor(%q) = %s, %q; want %s, %q", tt.tool, got, verb, tt.want, tt.verb)
		}
	}
}

// TestArgumentWords pins which argument names are modes and flags: a
// word of the name counts, in any case and spelling, and a longer word
// that only contains one does not.
func TestArgumentWords(t *testing.T) {
	modes := map[string]bool{"mode": true, "Mode": true, "action": true, "http_method": true, "operationType": true,
		"op": true, "COMMAND": true, "options": false, "scope": false, "top": false, "transaction": false, "commands": false, "modes": false, "": false}
	for k, want := range modes {
		if got := IsModeKey(k); got != want {
			t.Errorf("IsModeKey(%q) = %v, want %v", k, got, want)
		}
	}
	flags := map[string]string{"force": "force", "forcePush": "force", "hard_delete": "hard", "allowOverwrite": "overwrite", "delete_branch": "delete",
		"AMEND": "amend", "deleted": "", "forced_at": "", "hardware": "", "recursive": "", "dry_run": ""}
	for k, want := range flags {
		if got := FlagWord(k); got != want {
			t.Errorf("FlagWord(%q) = %q, want %q", k, got, want)
		}
	}
	if ReachWord("recursive") != "recursive" || ReachWord("isRecursive") != "recursive" || ReachWord("recursion") != "" {
		t.Error("ReachWord misreads recursive")
	}
	for _, w := range append(append(append([]string{}, ModeKeys...), Flags...), Reach...) {
		if got := Words(w); len(got) != 1 || got[0] != w {
			t.Errorf("%q is not one lower-case word", w)
		}
	}
	for _, tt := range []struct {
		values []string
		want   bool
	}{
		{[]string{"list", "create", "delete"}, true},
		{[]string{"fetch", "save", "remove"}, true},
		{[]string{"get", "set", "asc", "desc"}, true},
		{[]string{"get", "asc"}, false},
		{[]string{"asc", "desc"}, false},
		{[]string{"list"}, false},
		{[]string{"name", "date", "status", "size"}, false},
		{[]string{"run", "exec"}, false},
		{[]string{"list", "create", "a", "b", "c"}, false},
	} {
		if got := VerbEnum(tt.values); got != tt.want {
			t.Errorf("VerbEnum(%q) = %v, want %v", tt.values, got, tt.want)
		}
	}
	for _, tt := range []struct {
		value string
		class Class
	}{{"delete", Destructive}, {"DELETE", Destructive}, {"soft_delete", Destructive}, {"list", Read}, {"create", Write},
		{"merge", Unsafe}, {"fast", None}, {"run", None}, {"", None}, {strings.Repeat("delete ", 40), None}} {
		if got := Mode(tt.value).Class; got != tt.class {
			t.Errorf("Mode(%q).Class = %s, want %s", tt.value, got, tt.class)
		}
	}
}
