package replay_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// keyTool records each call's idempotency key and names a resource.
type keyTool struct {
	calls *[]string
}

func (keyTool) Effect() ast.Effect { return ast.EffectDestructive }

func (k keyTool) Call(ctx context.Context, args []byte) (*tool.Observation, error) {
	*k.calls = append(*k.calls, tool.IdempotencyKey(ctx))
	return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: `{"ok":true}`, Resource: "note://1"}, nil
}

const approvalSkill = `---
name: notes
description: Write, read, delete
---

### Step 1 — Write
- intent: Write a note
- action: write_note {"text": "hello"}
- assert: json.ok == true
- effect: idempotent-write

### Step 2 — Read
- intent: Read it
- action: read_note {}
- assert: json.ok == true
- effect: read

### Step 3 — Delete
- intent: Delete it
- action: delete_note {"id": 1}
- assert: json.ok == true
- effect: destructive
`

// approved writes the skill, approves steps and returns its text.
func approved(t *testing.T, src string, steps ...int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notes.skill.md")
	os.WriteFile(path, []byte(src), 0o644)
	if _, _, err := approval.Approve(path, steps); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	return string(b)
}

func TestApprovalsEnforced(t *testing.T) {
	base := approved(t, approvalSkill)
	tests := []struct {
		name       string
		src        string
		opts       func(*replay.Options)
		outcomes   []runlog.Outcome
		calls      int    // calls the tools saw
		status     string // step 3's approval status on the record
		changed    []string
		failure    string // step 3's failure, a substring
		noApproval bool   // step 3's record has no approval
	}{
		{name: "approved", src: base, outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Passed}, calls: 3, status: replay.ApprovalApproved},
		{name: "args edited", src: strings.Replace(base, `{"id": 1}`, `{"id": 2}`, 1), outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Failed}, calls: 2,
			status: replay.ApprovalStale, changed: []string{"args"}, failure: "notes.skill.md:24:1: step 3: refusing to run it: its argument template changed after it was approved"},
		{name: "effect lowered", src: strings.Replace(base, "effect: destructive", "effect: read", 1), outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Failed}, calls: 2,
			status: replay.ApprovalStale, changed: []string{"effect"}, failure: "its effect changed"},
		{name: "tool swapped", src: strings.Replace(base, "action: delete_note", "action: write_note", 1), outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Failed}, calls: 2,
			status: replay.ApprovalStale, changed: []string{"tool"}, failure: "its tool changed"},
		{name: "write without approval", src: approved(t, approvalSkill, 1), outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Failed}, calls: 2,
			status: replay.ApprovalMissing, failure: "it is a write step (effect: destructive) and the skill keeps approvals"},
		{name: "skip-writes does not skip it", src: strings.Replace(base, `{"id": 1}`, `{"id": 2}`, 1), opts: func(o *replay.Options) { o.SkipWrites = true },
			outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Failed}, calls: 2, status: replay.ApprovalStale, changed: []string{"args"}, failure: "step 3: refusing"},
		{name: "no approvals: the effect gate as before", src: approvalSkill, outcomes: []runlog.Outcome{runlog.Passed, runlog.Passed, runlog.Passed}, calls: 3, noApproval: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skill, diags := grammar.Parse("notes.skill.md", []byte(tt.src))
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var calls []string
			kt := keyTool{calls: &calls}
			reg := tool.Registry{"write_note": kt, "read_note": kt, "delete_note": kt}
			o := replay.Options{Tools: reg, Yes: true, Path: "notes.skill.md", Clock: fixedClock}
			if tt.opts != nil {
				tt.opts(&o)
			}
			res := replay.Run(context.Background(), skill, o)
			var got []runlog.Outcome
			for _, s := range res.Record.Steps {
				got = append(got, s.Outcome)
			}
			if !slices.Equal(got, tt.outcomes) || len(calls) != tt.calls {
				t.Fatalf("outcomes %v with %d calls, want %v with %d", got, len(calls), tt.outcomes, tt.calls)
			}
			s3 := res.Record.Steps[2]
			if tt.noApproval {
				if s3.Approval != nil || res.Record.Steps[0].Approval != nil {
					t.Errorf("approval on a skill without approvals: %+v", s3.Approval)
				}
				return
			}
			if s3.Approval == nil || s3.Approval.Status != tt.status || !slices.Equal(s3.Approval.Changed, tt.changed) || !strings.HasPrefix(s3.Approval.Digest, "sha256:") {
				t.Fatalf("step 3 approval %+v, want %s %v", s3.Approval, tt.status, tt.changed)
			}
			if res.Record.Steps[1].Approval != nil {
				t.Errorf("the unapproved read step has an approval record: %+v", res.Record.Steps[1].Approval)
			}
			if tt.failure == "" {
				return
			}
			if s3.Kind != runlog.KindApproval || len(s3.Failures) != 1 || !strings.Contains(s3.Failures[0], tt.failure) || s3.Write != nil {
				t.Errorf("step 3: kind %q failures %q write %+v, want %q", s3.Kind, s3.Failures, s3.Write, tt.failure)
			}
		})
	}
}

// TestIdempotencyKeys: each write step's call carries its key, the record
// keeps it with the resource named; a read step carries none; the same
// run ID gives the same keys, another run ID others.
func TestIdempotencyKeys(t *testing.T) {
	skill, _ := grammar.Parse("notes.skill.md", []byte(approvalSkill))
	run := func(id string) ([]string, *replay.Result) {
		var calls []string
		kt := keyTool{calls: &calls}
		reg := tool.Registry{"write_note": kt, "read_note": kt, "delete_note": kt}
		return calls, replay.Run(context.Background(), skill, replay.Options{Tools: reg, Yes: true, RunID: id, Clock: fixedClock})
	}
	callsA, a := run("run-a")
	callsA2, _ := run("run-a")
	callsB, _ := run("run-b")
	if a.Record.RunID != "run-a" {
		t.Errorf("runId %q", a.Record.RunID)
	}
	want := []string{replay.IdempotencyKey("run-a", "notes", 1), "", replay.IdempotencyKey("run-a", "notes", 3)}
	if !slices.Equal(callsA, want) || !slices.Equal(callsA2, want) {
		t.Fatalf("keys sent %q and %q, want %q", callsA, callsA2, want)
	}
	if callsB[0] == callsA[0] || callsB[2] == callsA[2] || callsB[0] == callsB[2] || len(callsB[0]) != 64 {
		t.Errorf("keys of another run %q", callsB)
	}
	for i, s := range a.Record.Steps {
		switch {
		case i == 1 && s.Write != nil:
			t.Errorf("the read step has a write receipt: %+v", s.Write)
		case i != 1 && (s.Write == nil || s.Write.IdempotencyKey != want[i] || s.Write.Resource != "note://1"):
			t.Errorf("step %d write receipt %+v", s.N, s.Write)
		}
	}
	// A run without an ID gets a fresh one each time.
	_, x := run("")
	_, y := run("")
	if len(x.Record.RunID) != 32 || x.Record.RunID == y.Record.RunID {
		t.Errorf("fresh run IDs %q %q", x.Record.RunID, y.Record.RunID)
	}
	// The key's definition (SPEC.md §14 "Write receipts").
	if got := replay.IdempotencyKey("r", "s", 2); got != sha256Hex("reelier-idempotency-v1\nr\ns\n2\n") {
		t.Errorf("IdempotencyKey = %s", got)
	}
}

// TestSkillApprovals: an approvals value that does not read makes the
// skill bad input, at its line.
func TestSkillApprovals(t *testing.T) {
	src := strings.Replace(approved(t, approvalSkill), " sha256:", " sha256:X", 1)
	skill, _ := grammar.Parse("notes.skill.md", []byte(src))
	err := replay.SkillApprovals(skill)
	if err == nil || !strings.HasPrefix(err.Error(), "6:7: metadata reelier-approvals: want sha256:") {
		t.Fatalf("SkillApprovals = %v", err)
	}
	skill, _ = grammar.Parse("notes.skill.md", []byte(approved(t, approvalSkill)))
	if err := replay.SkillApprovals(skill); err != nil {
		t.Fatal(err)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
