package compile_test

import (
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

// TestFindingsEffects holds the compiler to findings 5 and 6 of the
// [decisions] issue (#33): a tool whose arguments change what it does is
// classified from those arguments, and a redaction — named or not — is
// an input of its own. Each case failed on the compiler before the fix.
func TestFindingsEffects(t *testing.T) {
	tests := []struct {
		finding string
		trace   string
		effects map[int]ast.Effect // step → the effect it must have
		want    []string           // lines (or regexps, when they start with ~) the skill must have
		wantNot []string           // substrings the skill must not have
	}{
		{
			finding: `a call with {"mode": "delete"} on a tool whose mode enum also holds list and create is destructive; each step gets its own call's effect`,
			trace:   "43-multi-mode-tool.jsonl",
			effects: map[int]ast.Effect{1: ast.EffectIdempotentWrite, 2: ast.EffectIdempotentWrite, 3: ast.EffectDestructive},
			want:    []string{`~^- Step 3 \(edit_tasks\): the argument mode "delete" `},
		},
		{
			finding: "an argument whose schema enum holds verbs is read through the verb table, whatever its name",
			trace:   "43-multi-mode-tool.jsonl",
			effects: map[int]ast.Effect{4: ast.EffectDestructive},
			want:    []string{`~^- Step 4 \(bookmarks_sync\): the argument task "remove" `},
		},
		{
			finding: "the skill-level summary does not claim milder than the most dangerous recorded mode",
			trace:   "43-multi-mode-tool.jsonl",
			want:    []string{"~it runs steps 3 and 4 only with `--yes` and steps 1 and 2 with `--allow-writes`"},
		},
		{
			finding: `a commit-style call with {"amend": true} is destructive; the same tool without it stays a write`,
			trace:   "44-amend-flag.jsonl",
			effects: map[int]ast.Effect{3: ast.EffectIdempotentWrite, 4: ast.EffectDestructive},
			want:    []string{`~^- Step 4 \(git_commit\): the flag amend: true `},
			wantNot: []string{"Step 3 (git_commit): the flag"},
		},
		{
			finding: `a write with {"overwrite": true} is destructive; a read with {"recursive": true} stays a read`,
			trace:   "44-amend-flag.jsonl",
			effects: map[int]ast.Effect{1: ast.EffectRead, 2: ast.EffectDestructive},
			want:    []string{`~^- Step 2 \(write_file\): the flag overwrite: true `},
		},
		{
			finding: "a value redacted by name is an input named from the name, one input for both uses, never the placeholder",
			trace:   "45-named-redaction.jsonl",
			want: []string{
				`- action: get_account {"account": "acct_77", "token": "{{payments_token}}"}`,
				`- action: list_payouts {"account": "acct_77", "auth": "Bearer {{payments_token}}"}`,
				"~^Inputs: `{{payments_token}}` — ",
			},
			wantNot: []string{"«redacted", "{{token}}", "{{auth}}"},
		},
		{
			finding: "two different redactions in one argument are two inputs",
			trace:   "46-two-redactions.jsonl",
			want: []string{
				`- action: get_session {"value": "{{secret}} {{secret_2}}"}`,
				`- action: get_ledger {"keys": "{{ledger_key}} {{audit_key}}"}`,
			},
			wantNot: []string{"«redacted", "{{secret}} {{secret}}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.finding, func(t *testing.T) {
			path := filepath.Join("testdata", "traces", tt.trace)
			tr, err := trace.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := compile.Compile(tr, compile.Options{Source: tt.trace, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			src := string(format.Source(out.Skill))
			skill, diags := grammar.Parse(tt.trace, []byte(src))
			if diags.HasErrors() {
				t.Fatalf("the compiled skill does not parse:\n%v", diags)
			}
			for n, want := range tt.effects {
				if n > len(skill.Steps) {
					t.Fatalf("no step %d", n)
				}
				if got := skill.Steps[n-1].EffectValue(); got != want {
					t.Errorf("step %d: effect %s, want %s", n, got, want)
				}
				for _, se := range out.Summary.StepEffects {
					if se.Step == n && se.Effect != want {
						t.Errorf("the summary says step %d is %s, want %s", n, se.Effect, want)
					}
				}
			}
			checkLines(t, src, tt.want, tt.wantNot)
		})
	}
}
