package compile

import (
	"fmt"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
	"github.com/reelier/reelier/trace"
)

// TestClassifyNames: with no annotation, the words of the name decide:
// the verb leading each clause, and an unsafe-to-repeat or destructive word
// anywhere.
func TestClassifyNames(t *testing.T) {
	tests := []struct {
		tool         string
		want         ast.Effect
		reason       string
		unclassified bool
	}{
		{"get_user", ast.EffectRead, `verb "get"`, false},
		{"getUser", ast.EffectRead, `verb "get"`, false},
		{"HTTPGetStatus", ast.EffectRead, `verb "get"`, false},
		{"bookings_list", ast.EffectRead, `verb "list"`, false},
		{"list_deleted_items", ast.EffectRead, `verb "list"`, false},
		{"get_settings", ast.EffectRead, `verb "get"`, false},
		{"get_workflow_run", ast.EffectRead, `verb "get"`, false},
		{"get_merge_request", ast.EffectRead, `verb "get"`, false},
		{"list_merge_requests", ast.EffectRead, `verb "list"`, false},
		{"read_email", ast.EffectRead, `verb "read"`, false},
		// A read or write word after the clause's leading verb is its object.
		{"get_commit", ast.EffectRead, `verb "get"`, false},
		{"get_release", ast.EffectRead, `verb "get"`, false},
		{"github.get_release_by_tag", ast.EffectRead, `verb "get"`, false},
		{"get_store_settings", ast.EffectRead, `verb "get"`, false},
		{"create_label_link", ast.EffectIdempotentWrite, `verb "create"`, false},
		{"http.get", ast.EffectRead, `verb "get"`, false},
		{"create_note", ast.EffectIdempotentWrite, `verb "create"`, false},
		{"github.create_issue", ast.EffectIdempotentWrite, `verb "create"`, false},
		{"upsertContact", ast.EffectIdempotentWrite, `verb "upsert"`, false},
		{"get_or_create-user", ast.EffectIdempotentWrite, `verb "create"`, false},
		{"list_and_update", ast.EffectIdempotentWrite, `verb "update"`, false},
		{"http.put", ast.EffectIdempotentWrite, `verb "put"`, false},
		// A destructive verb anywhere wins.
		{"fetch_delete_user", ast.EffectDestructive, `verb "delete"`, false},
		{"get_refund", ast.EffectDestructive, `verb "refund"`, false},
		{"get_post", ast.EffectDestructive, `verb "post"`, false},
		{"get_comment", ast.EffectDestructive, `verb "comment", not safe to repeat`, false},
		{"http.post", ast.EffectDestructive, `verb "post"`, false},
		{"http.delete", ast.EffectDestructive, `verb "delete"`, false},
		{"1_delete-branch", ast.EffectDestructive, `verb "delete"`, false},
		{"mcp__billing__refund_charge", ast.EffectDestructive, `verb "refund"`, false},
		{"fetchThenPurge", ast.EffectDestructive, `verb "purge"`, false},
		{"list.delete_all", ast.EffectDestructive, `verb "delete"`, false},
		{"user_delete", ast.EffectDestructive, `verb "delete"`, false},
		{"create_and_send_invoice", ast.EffectDestructive, `verb "send"`, false},
		{"execute_delete", ast.EffectDestructive, `verb "delete"`, false},
		{"process_refund", ast.EffectDestructive, `verb "refund"`, false},
		// Unsafe-to-repeat verbs are destructive without a hint.
		{"reply_to_thread", ast.EffectDestructive, `verb "reply", not safe to repeat`, false},
		{"comment_on_issue", ast.EffectDestructive, `verb "comment", not safe to repeat`, false},
		{"add_issue_comment", ast.EffectDestructive, `verb "comment", not safe to repeat`, false},
		{"book_room", ast.EffectDestructive, `verb "book", not safe to repeat`, false},
		{"invite_user", ast.EffectDestructive, `verb "invite", not safe to repeat`, false},
		{"approve_pr", ast.EffectDestructive, `verb "approve", not safe to repeat`, false},
		{"merge_pr", ast.EffectDestructive, `verb "merge", not safe to repeat`, false},
		{"merge_merge_request", ast.EffectDestructive, `verb "merge", not safe to repeat`, false},
		{"push_context", ast.EffectDestructive, `verb "push", not safe to repeat`, false},
		{"start_job", ast.EffectDestructive, `verb "start", not safe to repeat`, false},
		{"stop_server", ast.EffectDestructive, `verb "stop", not safe to repeat`, false},
		{"disable_account", ast.EffectDestructive, `verb "disable", not safe to repeat`, false},
		{"replace_file", ast.EffectDestructive, `verb "replace", not safe to repeat`, false},
		{"search_and_replace", ast.EffectDestructive, `verb "replace", not safe to repeat`, false},
		{"trigger_build", ast.EffectDestructive, `verb "trigger", not safe to repeat`, false},
		{"toggle-simulated-logging", ast.EffectDestructive, `verb "toggle", not safe to repeat`, false},
		// Nothing known, or an opaque verb leading a clause: unclassified.
		{"frobnicate_widget", ast.EffectDestructive, "no known verb", true},
		{"open_nodes", ast.EffectDestructive, "no known verb", true},
		{"email_report", ast.EffectDestructive, "no known verb", true},
		{"run_query", ast.EffectDestructive, `verb "run" says nothing about effects`, true},
		{"run_and_list", ast.EffectDestructive, `verb "run" says nothing about effects`, true},
		{"run_and_update", ast.EffectDestructive, `verb "run" says nothing about effects`, true},
		{"échanger", ast.EffectDestructive, "no known verb", true},
		{"x", ast.EffectDestructive, "no known verb", true},
	}
	for _, tt := range tests {
		c := classify(tt.tool, nil)
		if c.Effect != tt.want || c.Reason != tt.reason || c.Unclassified != tt.unclassified || c.Conflict != "" {
			t.Errorf("classify(%q) = %+v; want %s, %q, unclassified %v", tt.tool, c, tt.want, tt.reason, tt.unclassified)
		}
	}
}

func TestClassifyLadder(t *testing.T) {
	yes, no := true, false
	T, F := &yes, &no
	tests := []struct {
		name         string
		tool         string
		ann          *trace.Annotations
		want         ast.Effect
		unclassified bool
		conflict     bool
	}{
		// No annotation: the verb decides; no verb is destructive and asked about.
		{"read verb", "list_items", nil, ast.EffectRead, false, false},
		{"write verb", "create_note", nil, ast.EffectIdempotentWrite, false, false},
		{"destructive verb", "delete_note", nil, ast.EffectDestructive, false, false},
		{"unknown verb", "frob_cache", nil, ast.EffectDestructive, true, false},
		{"empty annotation", "frob_cache", &trace.Annotations{}, ast.EffectDestructive, true, false},
		// destructiveHint: true always wins.
		{"destructive hint on read", "get_secret", &trace.Annotations{DestructiveHint: T, ReadOnlyHint: T}, ast.EffectDestructive, false, true},
		{"destructive hint on write", "create_note", &trace.Annotations{DestructiveHint: T}, ast.EffectDestructive, false, true},
		{"destructive hint on unknown", "frob_cache", &trace.Annotations{DestructiveHint: T}, ast.EffectDestructive, false, false},
		{"destructive hint agrees", "delete_note", &trace.Annotations{DestructiveHint: T}, ast.EffectDestructive, false, false},
		{"destructive hint on unsafe", "merge_pr", &trace.Annotations{DestructiveHint: T, IdempotentHint: T}, ast.EffectDestructive, false, false},
		// No hint downgrades a verb match.
		{"read-only hint on write verb", "create_note", &trace.Annotations{ReadOnlyHint: T}, ast.EffectIdempotentWrite, false, true},
		{"read-only hint on destructive verb", "delete_draft", &trace.Annotations{ReadOnlyHint: T, DestructiveHint: F}, ast.EffectDestructive, false, true},
		{"read-only hint on a later destructive verb", "get_refund", &trace.Annotations{ReadOnlyHint: T}, ast.EffectDestructive, false, true},
		{"non-destructive hint on destructive verb", "delete_draft", &trace.Annotations{DestructiveHint: F}, ast.EffectDestructive, false, false},
		{"idempotent hint on destructive verb", "send_mail", &trace.Annotations{IdempotentHint: T}, ast.EffectDestructive, false, false},
		{"read-only hint on unsafe verb", "merge_pr", &trace.Annotations{ReadOnlyHint: T}, ast.EffectDestructive, false, true},
		{"non-destructive hint on unsafe verb", "invite_user", &trace.Annotations{ReadOnlyHint: F, DestructiveHint: F}, ast.EffectDestructive, false, false},
		// idempotentHint: true is believed for unsafe-to-repeat verbs.
		{"idempotent hint on unsafe verb", "merge_pr", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, false},
		{"idempotent hint on unsafe verb, read-only too", "start_job", &trace.Annotations{IdempotentHint: T, ReadOnlyHint: T}, ast.EffectIdempotentWrite, false, true},
		// idempotentHint: false on a write makes it destructive.
		{"not idempotent on write verb", "create_entities", &trace.Annotations{ReadOnlyHint: F, DestructiveHint: F, IdempotentHint: F}, ast.EffectDestructive, false, true},
		{"not idempotent alone on write verb", "add_observations", &trace.Annotations{IdempotentHint: F}, ast.EffectDestructive, false, true},
		{"idempotent on write verb", "create_directory", &trace.Annotations{ReadOnlyHint: F, DestructiveHint: F, IdempotentHint: T}, ast.EffectIdempotentWrite, false, false},
		{"not idempotent on read verb, not read-only", "fetch_token", &trace.Annotations{ReadOnlyHint: F, DestructiveHint: F, IdempotentHint: F}, ast.EffectDestructive, false, true},
		{"not idempotent on read verb alone", "list_items", &trace.Annotations{IdempotentHint: F}, ast.EffectRead, false, false},
		{"not idempotent on unknown, not read-only", "frob_cache", &trace.Annotations{ReadOnlyHint: F, IdempotentHint: F}, ast.EffectDestructive, false, false},
		{"not idempotent on unknown, not destructive", "frob_cache", &trace.Annotations{DestructiveHint: F, IdempotentHint: F}, ast.EffectDestructive, false, true},
		{"not idempotent alone on unknown", "frob_cache", &trace.Annotations{IdempotentHint: F}, ast.EffectDestructive, true, false},
		{"not idempotent but read-only on unknown", "frob_cache", &trace.Annotations{ReadOnlyHint: T, IdempotentHint: F}, ast.EffectRead, false, false},
		// Hints may tighten a read verb.
		{"idempotent hint tightens read", "list_locks", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, true},
		{"not read-only, idempotent", "fetch_token", &trace.Annotations{ReadOnlyHint: F, IdempotentHint: T}, ast.EffectIdempotentWrite, false, true},
		{"not read-only, not destructive", "fetch_token", &trace.Annotations{ReadOnlyHint: F, DestructiveHint: F}, ast.EffectIdempotentWrite, false, true},
		{"not read-only alone", "read_mailbox", &trace.Annotations{ReadOnlyHint: F}, ast.EffectDestructive, false, true},
		{"read-only agrees", "show_config", &trace.Annotations{ReadOnlyHint: T, IdempotentHint: T}, ast.EffectRead, false, false},
		// Hints refine unknown and opaque verbs.
		{"read-only hint on unknown", "frob_cache", &trace.Annotations{ReadOnlyHint: T}, ast.EffectRead, false, false},
		{"idempotent hint on unknown", "warm_index", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, false},
		{"non-destructive hint on unknown", "tidy_queue", &trace.Annotations{DestructiveHint: F}, ast.EffectIdempotentWrite, false, false},
		{"not read-only on unknown", "zap_queue", &trace.Annotations{ReadOnlyHint: F}, ast.EffectDestructive, true, false},
		{"read-only hint on opaque", "run_query", &trace.Annotations{ReadOnlyHint: T}, ast.EffectRead, false, false},
		{"idempotent hint on opaque", "execute_sql", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, false},
		// An opaque verb next to a known one: the more severe reading wins.
		{"read-only hint on opaque and write", "run_and_update", &trace.Annotations{ReadOnlyHint: T}, ast.EffectIdempotentWrite, false, true},
		{"read-only hint on opaque and unsafe", "run_and_send", &trace.Annotations{ReadOnlyHint: T}, ast.EffectDestructive, false, true},
		{"read-only hint on opaque and destructive", "execute_delete", &trace.Annotations{ReadOnlyHint: T}, ast.EffectDestructive, false, true},
		{"idempotent hint on opaque and unsafe", "run_and_merge", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, false},
		{"read-only hint on opaque and read", "run_and_list", &trace.Annotations{ReadOnlyHint: T}, ast.EffectRead, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := classify(tt.tool, tt.ann)
			if c.Effect != tt.want || c.Unclassified != tt.unclassified || (c.Conflict != "") != tt.conflict {
				t.Errorf("classify(%q, %s) = %+v; want %s, unclassified %v, conflict %v", tt.tool, hints(tt.ann), c, tt.want, tt.unclassified, tt.conflict)
			}
			if c.Reason == "" {
				t.Error("no reason given")
			}
		})
	}
}

// hint builds annotations from the three hints a server may declare, nil
// meaning undeclared.
func hint(readOnly, destructive, idempotent *bool) *trace.Annotations {
	return &trace.Annotations{ReadOnlyHint: readOnly, DestructiveHint: destructive, IdempotentHint: idempotent}
}

// TestClassifyRealServers holds the classification of every tool of the
// reference MCP servers that users record against, with the annotations
// each declares (read from the published packages
// @modelcontextprotocol/server-memory@2026.8.31,
// server-filesystem@2026.8.31 and server-everything@2026.1.26, which
// declares none).
func TestClassifyRealServers(t *testing.T) {
	yes, no := true, false
	T, F := &yes, &no
	tests := []struct {
		tool     string
		ann      *trace.Annotations
		want     ast.Effect
		reason   string
		conflict bool
	}{
		// server-memory
		{"create_entities", hint(F, F, F), ast.EffectDestructive, `verb "create" tightened by annotation idempotentHint: false`, true},
		{"create_relations", hint(F, F, F), ast.EffectDestructive, `verb "create" tightened by annotation idempotentHint: false`, true},
		{"add_observations", hint(F, F, F), ast.EffectDestructive, `verb "add" tightened by annotation idempotentHint: false`, true},
		{"delete_entities", hint(F, T, T), ast.EffectDestructive, "annotation destructiveHint: true", false},
		{"delete_observations", hint(F, T, T), ast.EffectDestructive, "annotation destructiveHint: true", false},
		{"delete_relations", hint(F, T, T), ast.EffectDestructive, "annotation destructiveHint: true", false},
		{"read_graph", hint(T, F, T), ast.EffectRead, `verb "read"`, false},
		{"search_nodes", hint(T, F, T), ast.EffectRead, `verb "search"`, false},
		{"open_nodes", hint(T, F, T), ast.EffectRead, "annotation readOnlyHint: true", false},
		// server-filesystem
		{"read_file", hint(T, nil, nil), ast.EffectRead, `verb "read"`, false},
		{"read_text_file", hint(T, nil, nil), ast.EffectRead, `verb "read"`, false},
		{"read_media_file", hint(T, nil, nil), ast.EffectRead, `verb "read"`, false},
		{"read_multiple_files", hint(T, nil, nil), ast.EffectRead, `verb "read"`, false},
		{"write_file", hint(F, T, T), ast.EffectDestructive, "annotation destructiveHint: true", true},
		{"edit_file", hint(F, T, F), ast.EffectDestructive, "annotation destructiveHint: true", true},
		{"create_directory", hint(F, F, T), ast.EffectIdempotentWrite, `verb "create"`, false},
		{"list_directory", hint(T, nil, nil), ast.EffectRead, `verb "list"`, false},
		{"list_directory_with_sizes", hint(T, nil, nil), ast.EffectRead, `verb "list"`, false},
		{"directory_tree", hint(T, nil, nil), ast.EffectRead, "annotation readOnlyHint: true", false},
		{"move_file", hint(F, T, F), ast.EffectDestructive, "annotation destructiveHint: true", true},
		{"search_files", hint(T, nil, nil), ast.EffectRead, `verb "search"`, false},
		{"get_file_info", hint(T, nil, nil), ast.EffectRead, `verb "get"`, false},
		{"list_allowed_directories", hint(T, nil, nil), ast.EffectRead, `verb "list"`, false},
		// server-everything: no annotations.
		{"echo", nil, ast.EffectRead, `verb "echo"`, false},
		{"get-annotated-message", nil, ast.EffectRead, `verb "get"`, false},
		{"get-env", nil, ast.EffectRead, `verb "get"`, false},
		{"get-resource-links", nil, ast.EffectRead, `verb "get"`, false},
		{"get-resource-reference", nil, ast.EffectRead, `verb "get"`, false},
		{"get-roots-list", nil, ast.EffectRead, `verb "get"`, false},
		{"get-structured-content", nil, ast.EffectRead, `verb "get"`, false},
		{"get-sum", nil, ast.EffectRead, `verb "get"`, false},
		{"get-tiny-image", nil, ast.EffectRead, `verb "get"`, false},
		{"gzip-file-as-resource", nil, ast.EffectDestructive, "no known verb", false},
		{"toggle-simulated-logging", nil, ast.EffectDestructive, `verb "toggle", not safe to repeat`, false},
		{"toggle-subscriber-updates", nil, ast.EffectDestructive, `verb "toggle", not safe to repeat`, false},
		{"trigger-long-running-operation", nil, ast.EffectDestructive, `verb "trigger", not safe to repeat`, false},
		{"trigger-elicitation-request", nil, ast.EffectDestructive, `verb "trigger", not safe to repeat`, false},
		{"trigger-sampling-request", nil, ast.EffectDestructive, `verb "trigger", not safe to repeat`, false},
		{"trigger-elicitation-request-async", nil, ast.EffectDestructive, `verb "trigger", not safe to repeat`, false},
		{"trigger-sampling-request-async", nil, ast.EffectDestructive, `verb "trigger", not safe to repeat`, false},
		{"simulate-research-query", nil, ast.EffectRead, `verb "query"`, false},
	}
	for _, tt := range tests {
		c := classify(tt.tool, tt.ann)
		if c.Effect != tt.want || c.Reason != tt.reason || (c.Conflict != "") != tt.conflict {
			t.Errorf("classify(%q, %s) = %+v; want %s, %q, conflict %v", tt.tool, hints(tt.ann), c, tt.want, tt.reason, tt.conflict)
		}
	}
}

// TestClassifyNeverBelowLint: whatever the hints, the compiler never
// writes an effect the effect_verb lint would call too mild.
func TestClassifyNeverBelowLint(t *testing.T) {
	yes, no := true, false
	values := []*bool{nil, &yes, &no}
	var names []string
	for _, r := range verbs.Table {
		for _, w := range r.Words {
			names = append(names, w+"_thing", "get_"+w, w+"_and_list", "run_and_"+w, "mcp__srv__"+w+"Thing")
		}
	}
	for _, name := range names {
		floor, verb := verbs.Scan(name).Floor()
		want := classEffect(floor)
		for _, ro := range values {
			for _, de := range values {
				for _, id := range values {
					a := hint(ro, de, id)
					if c := classify(name, a); effectRank(c.Effect) < effectRank(want) {
						t.Errorf("classify(%q, %s) = %s, milder than the lint's %s (verb %q)", name, hints(a), c.Effect, want, verb)
					}
				}
			}
		}
	}
}

func TestHints(t *testing.T) {
	yes, no := true, false
	if got := hints(&trace.Annotations{ReadOnlyHint: &no, IdempotentHint: &yes}); got != "readOnlyHint: false, idempotentHint: true" {
		t.Errorf("hints = %q", got)
	}
	if hints(nil) != "" || hints(&trace.Annotations{}) != "" {
		t.Error("no hints should print nothing")
	}
}

// Example_classifyIdempotentFalse shows the question a server's idempotentHint:
// false raises on a create.
func Example_classifyIdempotentFalse() {
	no := false
	c := classify("create_entities", &trace.Annotations{ReadOnlyHint: &no, DestructiveHint: &no, IdempotentHint: &no})
	fmt.Println(c.Effect)
	fmt.Println(c.Conflict)
	// Output:
	// destructive
	// the verb "create" suggests idempotent-write, but the server declares idempotentHint: false, so a repeat is not safe (it may, say, make a second copy) and the step is destructive
}
