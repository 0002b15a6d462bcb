package lint

import (
	"testing"

	"github.com/reelier/reelier/lang/ast"
)

// TestImpliedEffect pins what the rule holds a step to: the verb leading
// each clause, an unsafe-to-repeat verb asking only for a write, and the
// builtin HTTP tools read like any other name.
func TestImpliedEffect(t *testing.T) {
	tests := []struct {
		tool, verb string
		want       ast.Effect
	}{
		{"github.delete_issue", "delete", ast.EffectDestructive},
		{"mcp__stripe__refundCharge", "refund", ast.EffectDestructive},
		{"user_delete", "delete", ast.EffectDestructive},
		{"get_or_delete_draft", "delete", ast.EffectDestructive},
		{"http.delete", "delete", ast.EffectDestructive},
		{"http.post", "post", ast.EffectDestructive},
		{"http.put", "put", ast.EffectIdempotentWrite},
		{"http.patch", "patch", ast.EffectIdempotentWrite},
		{"github.add_labels", "add", ast.EffectIdempotentWrite},
		{"merge_pr", "merge", ast.EffectIdempotentWrite},
		{"toggle-simulated-logging", "toggle", ast.EffectIdempotentWrite},
		// Not held against a hand-written step.
		{"http.get", "", ""},
		{"get_refund", "", ""},
		{"fetch_delete_user", "", ""},
		{"get_release", "", ""},
		{"run_and_list", "", ""},
		{"email_report", "", ""},
		{"weather_forecast", "", ""},
	}
	for _, tt := range tests {
		if got, verb := impliedEffect(tt.tool); got != tt.want || verb != tt.verb {
			t.Errorf("impliedEffect(%q) = %q, %q; want %q, %q", tt.tool, got, verb, tt.want, tt.verb)
		}
	}
}
