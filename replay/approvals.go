package replay

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// SkillApprovals checks the skill's reelier-approvals metadata: an error
// naming each line that does not read (line:col: message), nil when it
// reads or the skill has none. An approval of a step the skill does not
// have is lint's (approval_unknown_step), not a reason to refuse the run:
// it approves nothing.
func SkillApprovals(skill *ast.Skill) error {
	var errs limitErrors
	for _, p := range approval.Check(skill).Problems {
		if p.Code == "syntax" {
			errs = append(errs, fmt.Errorf("%d:%d: metadata %s: %s", p.Pos.Line, p.Pos.Column, approval.MetadataKey, p.Msg))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// NewRunID returns a fresh run ID: 32 random hex digits.
func NewRunID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// IdempotencyKey is the key a write step's call carries: the hex SHA-256
// of the lines "reelier-idempotency-v1", the run's ID, the skill's name
// and the step's number, each ended by "\n". A retry of the same run (the
// same --run-id) sends the same key for the same step; another run sends
// another, and so do two skills run under one --run-id.
func IdempotencyKey(runID, skill string, step int) string {
	sum := sha256.Sum256([]byte("reelier-idempotency-v1\n" + runID + "\n" + skill + "\n" + strconv.Itoa(step) + "\n"))
	return hex.EncodeToString(sum[:])
}

// Approval statuses on the record.
const (
	ApprovalApproved = "approved"
	ApprovalStale    = "stale"
	ApprovalMissing  = "missing"
)

// approve checks a step against the skill's approvals before anything is
// sent. When the skill keeps approvals, a step that has one, or whose
// effect writes, runs only when its approval matches the step as it is;
// otherwise the step fails closed, whatever --allow-writes and --yes say.
// It puts what it found on the record and returns the refusal, or "".
func (r *runner) approve(rec *runlog.StepRecord, st *ast.Step, effect ast.Effect) string {
	if !r.approvals.Present() {
		return ""
	}
	sc := r.approvals.Of(st.Number)
	if sc == nil || (sc.Status == approval.None && !approval.IsWrite(effect)) {
		return ""
	}
	now := sc.Now
	if sc.Status == approval.None {
		now = approval.For(r.skill, st)
	}
	ar := &runlog.ApprovalRecord{Digest: now.Digest, Changed: sc.Changed}
	rec.Approval = ar
	var why string
	switch sc.Status {
	case approval.Approved:
		ar.Status = ApprovalApproved
		return ""
	case approval.Stale:
		ar.Status = ApprovalStale
		why = "refusing to run it: " + sc.Message()
	default:
		ar.Status = ApprovalMissing
		why = fmt.Sprintf("refusing to run it: it is a write step (effect: %s) and the skill keeps approvals (metadata %s) but none for it; review it and run reelier approve --step %d", effect, approval.MetadataKey, st.Number)
	}
	path := r.opts.Path
	if path == "" {
		path = "<stdin>"
	}
	at := st.HeaderRange.Start
	if st.Action != nil {
		at = st.Action.Range.Start
	}
	return fmt.Sprintf("%s:%d:%d: step %d: %s", path, at.Line, at.Column, st.Number, why)
}

// writeReceipt starts a write step's receipt on the record and returns
// ctx carrying the idempotency key its call sends.
func (r *runner) writeReceipt(ctx context.Context, rec *runlog.StepRecord, st *ast.Step) context.Context {
	key := IdempotencyKey(r.runID, r.skill.Name(), st.Number)
	rec.Write = &runlog.WriteRecord{IdempotencyKey: key}
	return tool.WithIdempotencyKey(ctx, key)
}

// resourceOf is the resource an observation names, redacted.
func (r *runner) resourceOf(obs *tool.Observation) string {
	if obs == nil || obs.Resource == "" {
		return ""
	}
	return r.opts.Redactor.String("uri", obs.Resource)
}

// approvedArgs refuses a heal's new arguments for a step the skill's
// approvals hold (one that has an approval, or writes, in a skill that
// keeps approvals): what was approved is the step's own argument
// template, and a model's patch was never reviewed.
func (r *runner) approvedArgs(st *ast.Step, effect ast.Effect, args ast.Value) error {
	if !r.approvals.Present() || st.Action == nil {
		return nil
	}
	sc := r.approvals.Of(st.Number)
	if sc == nil || (sc.Status == approval.None && !approval.IsWrite(effect)) {
		return nil
	}
	if args != nil && st.Action.Args != nil && format.Value(args) == format.Value(st.Action.Args) {
		return nil
	}
	return fmt.Errorf("step %d is held by the skill's approvals (metadata %s): a heal may not change its arguments", st.Number, approval.MetadataKey)
}
