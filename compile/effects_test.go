package compile

import (
	"testing"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/trace"
)

func TestVerbClass(t *testing.T) {
	tests := []struct {
		tool, verb string
		want       ast.Effect
	}{
		{"get_user", "get", ast.EffectRead},
		{"getUser", "get", ast.EffectRead},
		{"HTTPGetStatus", "get", ast.EffectRead},
		{"bookings_list", "list", ast.EffectRead},
		{"list_deleted_items", "list", ast.EffectRead},
		{"get_refund", "get", ast.EffectRead},
		{"get_post", "get", ast.EffectRead},
		{"http.get", "get", ast.EffectRead},
		{"create_note", "create", ast.EffectIdempotentWrite},
		{"github.create_issue", "create", ast.EffectIdempotentWrite},
		{"upsertContact", "upsert", ast.EffectIdempotentWrite},
		{"search_and_replace", "replace", ast.EffectIdempotentWrite},
		{"get_or_create-user", "create", ast.EffectIdempotentWrite},
		{"http.post", "post", ast.EffectDestructive},
		{"1_delete-branch", "delete", ast.EffectDestructive},
		{"mcp__billing__refund_charge", "refund", ast.EffectDestructive},
		{"fetchThenPurge", "purge", ast.EffectDestructive},
		{"list.delete_all", "delete", ast.EffectDestructive},
		{"user_delete", "delete", ast.EffectDestructive},
		{"create_and_send_invoice", "send", ast.EffectDestructive},
		{"frobnicate_widget", "", ""},
		{"run_query", "", ""},
		{"execute_delete", "", ""},
		{"run_and_list", "", ""},
		{"échanger", "", ""},
		{"x", "", ""},
	}
	for _, tt := range tests {
		got, verb := verbClass(tt.tool)
		if got != tt.want || verb != tt.verb {
			t.Errorf("verbClass(%q) = %q, %q; want %q, %q", tt.tool, got, verb, tt.want, tt.verb)
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
		// No hint downgrades a verb match.
		{"read-only hint on write verb", "create_note", &trace.Annotations{ReadOnlyHint: T}, ast.EffectIdempotentWrite, false, true},
		{"read-only hint on destructive verb", "delete_draft", &trace.Annotations{ReadOnlyHint: T, DestructiveHint: F}, ast.EffectDestructive, false, true},
		{"non-destructive hint on destructive verb", "delete_draft", &trace.Annotations{DestructiveHint: F}, ast.EffectDestructive, false, false},
		{"idempotent hint on destructive verb", "send_mail", &trace.Annotations{IdempotentHint: T}, ast.EffectDestructive, false, false},
		// Hints may tighten a read verb.
		{"idempotent hint tightens read", "list_locks", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, true},
		{"not read-only, idempotent", "fetch_token", &trace.Annotations{ReadOnlyHint: F, IdempotentHint: T}, ast.EffectIdempotentWrite, false, true},
		{"not read-only, not destructive", "fetch_token", &trace.Annotations{ReadOnlyHint: F, DestructiveHint: F}, ast.EffectIdempotentWrite, false, true},
		{"not read-only alone", "read_mailbox", &trace.Annotations{ReadOnlyHint: F}, ast.EffectDestructive, false, true},
		{"read-only agrees", "show_config", &trace.Annotations{ReadOnlyHint: T, IdempotentHint: T}, ast.EffectRead, false, false},
		// Hints refine unknown verbs.
		{"read-only hint on unknown", "frob_cache", &trace.Annotations{ReadOnlyHint: T}, ast.EffectRead, false, false},
		{"idempotent hint on unknown", "warm_index", &trace.Annotations{IdempotentHint: T}, ast.EffectIdempotentWrite, false, false},
		{"non-destructive hint on unknown", "tidy_queue", &trace.Annotations{DestructiveHint: F}, ast.EffectIdempotentWrite, false, false},
		{"not read-only on unknown", "zap_queue", &trace.Annotations{ReadOnlyHint: F}, ast.EffectDestructive, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := classify(tt.tool, tt.ann)
			if c.Effect != tt.want || c.Unclassified != tt.unclassified || (c.Conflict != "") != tt.conflict {
				t.Errorf("classify(%q, %+v) = %+v; want %s, unclassified %v, conflict %v", tt.tool, tt.ann, c, tt.want, tt.unclassified, tt.conflict)
			}
			if c.Reason == "" {
				t.Error("no reason given")
			}
		})
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
