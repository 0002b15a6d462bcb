package replay

import (
	"github.com/reelier/reelier/redact"
)

// redactFailures is the one place a step's failures are redacted for
// everything that shows them: Run calls it once per step, after any
// escalation, before the failures reach the StepResult and the run record,
// and so the receipt, --json, JUnit, the summary, serve's reelier_replay and
// the ledger. Every text goes through the run's redactor, JSON quoted in it
// included (a refusal quotes the filled action, a tool error may quote its
// response); an observed value was already blanked by its place where the
// failure was made (show). Expr is left as the skill spells it, so a
// receipt can find its line; a receipt redacts it when it prints it.
func redactFailures(r *redact.Redactor, fs []Failure) []Failure {
	if len(fs) == 0 {
		return fs
	}
	out := make([]Failure, len(fs))
	for i, f := range fs {
		f.Message = redact.Text(r, "", f.Message)
		f.Expected = redact.Text(r, "", f.Expected)
		f.Observed = redact.Text(r, "", f.Observed)
		out[i] = f
	}
	return out
}

// Redactor returns the run's redactor (Options.Redactor, or the one the
// environment configures): a Healer passes what it shows a model through it,
// so the model never sees a value the run record would blank.
func (d *Divergence) Redactor() *redact.Redactor {
	if d.r != nil && d.r.opts.Redactor != nil {
		return d.r.opts.Redactor
	}
	return redact.RedactorFromEnv()
}
