package runlog

import (
	"encoding/json"
	"time"
)

// Outcome is what happened to one step of a run.
type Outcome string

// The step outcomes.
const (
	// Passed: the step ran, had at least one assert, and every assert and
	// bind held.
	Passed Outcome = "passed"
	// Unchecked: the step ran without incident but had no asserts, so
	// nothing about its result was verified.
	Unchecked Outcome = "unchecked"
	// Failed: an assert or bind failed, the tool failed or was refused, or
	// the action could not be filled.
	Failed Outcome = "failed"
	// Skipped: an earlier step failed, so this one was never attempted.
	Skipped Outcome = "skipped"
	// Interrupted: the run was stopped (Ctrl-C, SIGTERM) while the step's
	// request was with the tool. The request was sent, so the server may
	// have acted on it; the step's Action is what was sent (redacted).
	// A step the stop reached before its request was sent is Skipped
	// ("interrupted").
	Interrupted Outcome = "interrupted"
)

// InterruptedNote is what an interrupted step's outcome means, in the
// receipt's words.
const InterruptedNote = "interrupted in flight: the request was sent; the server may have acted on it"

// Valid reports whether o is one of the step outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case Passed, Unchecked, Failed, Skipped, Interrupted:
		return true
	}
	return false
}

// Verdict is the one word for a whole run, the same in every output: the
// receipt, the suite line, --json, serve's replay tool, JUnit, summary, the
// Action and the ledger.
type Verdict string

// The five verdicts.
const (
	// VerdictPassed: no step failed and at least one step checked
	// something.
	VerdictPassed Verdict = "passed"
	// VerdictFailed: a step failed — a check did not hold, or a tool, the
	// environment, a gate or the inputs stopped it (see StepRecord.Kind).
	VerdictFailed Verdict = "failed"
	// VerdictUnchecked: no step failed, but none checked anything either.
	VerdictUnchecked Verdict = "unchecked"
	// VerdictInterrupted: the run was stopped (Ctrl-C, SIGTERM) before it
	// finished; what ran is on the record, the rest is skipped.
	VerdictInterrupted Verdict = "interrupted"
	// VerdictConfig: a step failed, but only because of how the run was
	// set up — a write the gate refused, an action whose inputs could not
	// be filled or sent (StepRecord.Kind gate or input) — so nothing about
	// the servers was found wrong: not drift.
	VerdictConfig Verdict = "config"
)

// Kind says why a step failed, for exit codes and JUnit (a check is a
// <failure>, anything else an <error>).
type Kind string

// The failure kinds. Empty on a step that did not fail.
const (
	// KindCheck: an assert or bind did not hold (drift).
	KindCheck Kind = "check"
	// KindTool: the tool or its environment failed: a server crashed or
	// is unknown, a call timed out, a connection was refused, the tool
	// reported an error it could not recover from.
	KindTool Kind = "tool"
	// KindGate: the step's effect was not allowed (--allow-writes, --yes).
	KindGate Kind = "gate"
	// KindInput: the action could not be filled (a hole with no value, a
	// malformed computed date).
	KindInput Kind = "input"
	// KindApproval: the skill keeps approvals (metadata reelier-approvals)
	// and the step's did not match: it changed after it was approved, or
	// it is a write step with none. The step failed closed; nothing was
	// sent.
	KindApproval Kind = "approval"
	// KindPolicy: the policy in force did not allow the step's call
	// (deny, or ask, which a replay cannot put to anyone).
	KindPolicy Kind = "policy"
)

// Record is one run of one skill. Field order and names are the on-disk
// format; fields after Totals were added later and are omitted when empty,
// so older readers and older records keep working (SPEC.md §0).
type Record struct {
	// Skill is the skill's frontmatter name.
	Skill string `json:"skill"`
	// StartedAt and FinishedAt are UTC timestamps with millisecond
	// precision, formatted by Timestamp.
	StartedAt  string `json:"startedAt"`
	FinishedAt string `json:"finishedAt"`
	// Passed is true exactly when Verdict is passed: no step failed and at
	// least one step checked something.
	Passed bool         `json:"passed"`
	Steps  []StepRecord `json:"steps"`
	Totals Totals       `json:"totals"`
	// Verdict is the run's one word; records written before it existed
	// get it from their steps (DeriveVerdict).
	Verdict Verdict `json:"verdict,omitempty"`
	// Path is the skill file as the run named it (slash-separated,
	// relative when it was given relative); empty for stdin.
	Path string `json:"path,omitempty"`
	// SkillSHA256 is the hex SHA-256 of the skill file's bytes as run.
	SkillSHA256 string `json:"skillSha256,omitempty"`
	// Provenance says where the run ran (a CI provider and its repository,
	// commit, ref and run page, or a local machine); absent in records
	// written before it existed.
	Provenance *Provenance `json:"provenance,omitempty"`
	// ToolDrift is present when the live servers' tools differed from the
	// signatures the skill keeps (its reelier-tools metadata) before step
	// 1: then no step ran and the verdict is failed, unless the run was
	// told to ignore it (Ignored).
	ToolDrift *ToolDrift `json:"toolDrift,omitempty"`
	// Servers are the MCP servers the run ran against, in the order they
	// were started: each one's label, the program of a command or the
	// host of a URL (redacted), and whether it was `reelier mock` (a
	// recording served back, not a live server). Absent when the run
	// started none, and in records written before it existed.
	Servers []ServerUse `json:"servers,omitempty"`
	// OpenQuestions are the questions the skill's Open questions section
	// left unresolved when it ran, in file order: what the compiler could
	// not know, which a passed verdict does not vouch for. Absent when
	// there are none.
	OpenQuestions []OpenQuestion `json:"openQuestions,omitempty"`
	// RunID names the run: 32 random hex digits, or the ID a retry of an
	// earlier run was given (--run-id). Write steps' idempotency keys are
	// derived from it.
	RunID string `json:"runId,omitempty"`
	// Injected is present on a run given a failure on purpose (reelier
	// run --fail N=KIND): the step and the kind. Such a run says nothing
	// about the servers; reelier push does not send it.
	Injected *Injection `json:"injected,omitempty"`
}

// Injection is a failure a run was told to inject at one step.
type Injection struct {
	// Step is the step's number.
	Step int `json:"step"`
	// Kind is InjectError, InjectTimeout or InjectSchema.
	Kind string `json:"kind"`
}

// The kinds of injected failure.
const (
	// InjectError: the step's tool answers with an error result
	// (isError) instead of being called.
	InjectError = "error"
	// InjectTimeout: the step's call times out (nothing is sent).
	InjectTimeout = "timeout"
	// InjectSchema: the step's tool's schema changed — tool drift before
	// step 1.
	InjectSchema = "schema"
)

// InjectKinds are the kinds of injected failure, in the order help lists
// them.
var InjectKinds = []string{InjectError, InjectTimeout, InjectSchema}

// ServerUse is one MCP server a run ran against.
type ServerUse struct {
	// Name is the server's label (the name it was given, else the one
	// its command or URL gives; see mcpx.ServerSpec.Label).
	Name string `json:"name"`
	// Command is the program a local server ran (its last path element),
	// Host the host (and port) of a remote one; one of them is set.
	Command string `json:"command,omitempty"`
	Host    string `json:"host,omitempty"`
	// Mock says the server was `reelier mock`: recordings served back.
	Mock bool `json:"mock,omitempty"`
}

// Mock reports a run against `reelier mock`: one of its servers was.
func (r *Record) Mock() bool {
	for _, s := range r.Servers {
		if s.Mock {
			return true
		}
	}
	return false
}

// OpenQuestion is one unresolved open question of the skill that ran.
type OpenQuestion struct {
	// Line is the question's line in the skill file.
	Line int `json:"line"`
	// Step is the step the question names; absent for a question about
	// the skill as a whole.
	Step int `json:"step,omitempty"`
}

// ToolDrift is what the check before step 1 found.
type ToolDrift struct {
	// Ignored says the run went on anyway (--ignore-tool-drift).
	Ignored bool `json:"ignored"`
	// Tools are the tools that changed, in the order the skill lists them.
	Tools []DriftedTool `json:"tools"`
}

// DriftedTool is one tool whose live definition differs from the skill's
// signature of it.
type DriftedTool struct {
	// Server names the server that offers (or offered) it; "" when
	// neither the skill nor the live server names one.
	Server string `json:"server,omitempty"`
	// Tool is the tool's name as the skill calls it.
	Tool string `json:"tool"`
	// Changes say what changed, one sentence each ("input field
	// entities[].priority added (number, optional)", "annotation
	// readOnlyHint: true → false", "no longer offered by the server").
	Changes []string `json:"changes"`
}

// Provenance is where a run ran. Every field is plain text taken from the
// environment; whoever shows it escapes it.
type Provenance struct {
	// Provider is "github-actions", another CI's name, "ci" for a CI that
	// is not recognised, or "local".
	Provider string `json:"provider"`
	// Repository is the CI's owner/name of the repository.
	Repository string `json:"repository,omitempty"`
	// Commit is the full commit SHA the run checked out.
	Commit string `json:"commit,omitempty"`
	// Ref is the branch or tag (for example refs/heads/main).
	Ref string `json:"ref,omitempty"`
	// RunURL is the address of the CI run's page.
	RunURL string `json:"runUrl,omitempty"`
}

// StepRecord is one step of a run.
type StepRecord struct {
	N     int    `json:"n"`
	Title string `json:"title"`
	// Level is 0 when the step ran deterministically or never healed, and 1
	// or 2 when an escalation at that level healed it.
	Level   int     `json:"level"`
	Outcome Outcome `json:"outcome"`
	// Ms is the step's wall time in whole milliseconds.
	Ms int64 `json:"ms"`
	// Failures are the failure messages; empty unless Outcome is Failed.
	Failures []string `json:"failures"`
	// LLM is present only when escalation ran for this step.
	LLM *LLMUsage `json:"llm,omitempty"`
	// EscalationAttempted is the highest escalation level tried, present only
	// when escalation ran (it can exceed Level: tried and did not heal).
	EscalationAttempted *int `json:"escalationAttempted,omitempty"`
	// Why is present only when the step's behaviour changed: the first
	// failure of a failed step, or what a heal changed.
	Why *Why `json:"why,omitempty"`
	// Kind says why a failed step failed; empty otherwise.
	Kind Kind `json:"kind,omitempty"`
	// Action is the filled call (arguments after their holes were
	// filled), redacted; nil when the step never got that far.
	Action *ActionRecord `json:"action,omitempty"`
	// Binds are the values the step's binds took, as JSON, redacted.
	Binds map[string]json.RawMessage `json:"binds,omitempty"`
	// Observation identifies what the tool returned without keeping it.
	Observation *Digest `json:"observation,omitempty"`
	// Attempts counts executions of a read step retried with --retry
	// (absent when it ran once); each attempt's digest is in Tries.
	Attempts int      `json:"attempts,omitempty"`
	Tries    []Digest `json:"tries,omitempty"`
	// Skip says why a skipped step did not run: "earlier step failed",
	// "write gate", "interrupted".
	Skip string `json:"skip,omitempty"`
	// Approval is what the skill's approvals said of the step: present
	// when the skill keeps approvals and the step is a write step or has
	// an approval.
	Approval *ApprovalRecord `json:"approval,omitempty"`
	// Write is present on a write step whose call was sent: the
	// idempotency key it carried and the resource its result named.
	Write *WriteRecord `json:"write,omitempty"`
	// Policy is what the policy in force (reelier run --policy, or the
	// project's .reelier/policy.yaml) decided for the step's call;
	// absent when no policy was in force or the step never got to it.
	Policy *PolicyDecision `json:"policy,omitempty"`
}

// ApprovalRecord is a step's approval as the run found it.
type ApprovalRecord struct {
	// Status is "approved", "stale" (the step changed after it was
	// approved) or "missing" (a write step without an approval).
	Status string `json:"status"`
	// Digest is the step's approval digest as the step is now.
	Digest string `json:"digest"`
	// Changed names what changed for a stale step: "tool", "server",
	// "args", "effect"; absent when the approval line does not say.
	Changed []string `json:"changed,omitempty"`
}

// WriteRecord is the receipt of one write a step made.
type WriteRecord struct {
	// IdempotencyKey is the key the request carried in its _meta
	// ("dev.reelier/idempotency-key"), derived from the run's ID and the
	// step's number.
	IdempotencyKey string `json:"idempotencyKey"`
	// Resource is the URI of the resource the result named (its first
	// resource_link content block, else its first embedded resource);
	// absent when it named none.
	Resource string `json:"resource,omitempty"`
}

// PolicyDecision is a policy's decision for one call: the policy's
// digest ("sha256:…"), the rule that decided (absent when the default
// did) and the action: allow, deny, dry-run or ask (a replay has no one
// to ask, so an ask refuses the step).
type PolicyDecision struct {
	Digest string `json:"digest"`
	Rule   string `json:"rule,omitempty"`
	Action string `json:"action"`
}

// ActionRecord is a filled tool call as recorded.
type ActionRecord struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Digest identifies an observation: the SHA-256 and size of its canonical
// bytes (status, headers and body; see tool.Observation.Digest).
type Digest struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Status int    `json:"status,omitempty"`
}

// LLMUsage is the token count summed over every escalation attempt of a step.
type LLMUsage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	// Models splits the tokens by the model that spent them (Level 1 and
	// Level 2 may ask different ones), each with what it cost; absent in
	// records written before it.
	Models []ModelUsage `json:"models,omitempty"`
}

// ModelUsage is the tokens one model spent on a step, and their cost.
type ModelUsage struct {
	Model        string `json:"model"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// CostMicroUSD is what the tokens cost in millionths of a US dollar,
	// at the prices the run had (Reelier's price table, with the user's
	// file over it); absent when the run had no price for the model.
	CostMicroUSD *int64 `json:"costMicroUsd,omitempty"`
}

// Cost adds up what the step's tokens cost, in micro-dollars, and the
// tokens whose cost is unknown: those of a model without a price, and
// all of them in a record written before costs were.
func (u *LLMUsage) Cost() (micros, unpriced int64) {
	if u == nil {
		return 0, 0
	}
	if len(u.Models) == 0 {
		return 0, u.InputTokens + u.OutputTokens
	}
	for _, m := range u.Models {
		if m.CostMicroUSD == nil {
			unpriced += m.InputTokens + m.OutputTokens
			continue
		}
		micros += *m.CostMicroUSD
	}
	return micros, unpriced
}

// LLMCost adds up the cost of a run's steps: the micro-dollars known and
// the tokens whose cost is unknown.
func LLMCost(steps []StepRecord) (micros, unpriced int64) {
	for _, s := range steps {
		m, u := s.LLM.Cost()
		micros += m
		unpriced += u
	}
	return micros, unpriced
}

// Why explains a changed step with observed facts only.
type Why struct {
	// Trigger is the first failure of a failed step, verbatim.
	Trigger string `json:"trigger,omitempty"`
	// Change is what a successful heal changed ("L1: <reason>").
	Change string `json:"change,omitempty"`
	// Before and After are the step's lines a heal replaced and the
	// lines that replaced them, as written in the skill.
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// Totals are the run's counts; Passed counts only steps whose outcome is
// exactly "passed".
type Totals struct {
	Steps           int   `json:"steps"`
	Passed          int   `json:"passed"`
	Unchecked       int   `json:"unchecked"`
	Skipped         int   `json:"skipped"`
	Failed          int   `json:"failed"`
	Ms              int64 `json:"ms"`
	LLMInputTokens  int64 `json:"llmInputTokens"`
	LLMOutputTokens int64 `json:"llmOutputTokens"`
	// Interrupted counts steps interrupted in flight (added later: absent
	// when there are none).
	Interrupted int `json:"interrupted,omitempty"`
}

// CountSteps derives honest totals from the step records alone. It is how
// records are finished when written and how legacy records are read.
func CountSteps(steps []StepRecord) Totals {
	t := Totals{Steps: len(steps)}
	for _, s := range steps {
		switch s.Outcome {
		case Passed:
			t.Passed++
		case Unchecked:
			t.Unchecked++
		case Skipped:
			t.Skipped++
		case Failed:
			t.Failed++
		case Interrupted:
			t.Interrupted++
		}
		t.Ms += s.Ms
		if s.LLM != nil {
			t.LLMInputTokens += s.LLM.InputTokens
			t.LLMOutputTokens += s.LLM.OutputTokens
		}
	}
	return t
}

// Finish fills in Totals, Verdict and Passed from the steps. interrupted
// says the run was stopped before it finished.
func (r *Record) Finish(interrupted bool) {
	r.Totals = CountSteps(r.Steps)
	r.Verdict = DeriveVerdict(r.Totals)
	if r.Verdict == VerdictFailed && ConfigFailure(r.Steps) {
		r.Verdict = VerdictConfig
	}
	if r.ToolDrift != nil && !r.ToolDrift.Ignored {
		// Stopped before step 1: every step is skipped, and the run failed.
		r.Verdict = VerdictFailed
	}
	if interrupted {
		r.Verdict = VerdictInterrupted
	}
	r.Passed = r.Verdict == VerdictPassed
}

// DeriveVerdict is the verdict of a finished run's totals.
func DeriveVerdict(t Totals) Verdict {
	switch {
	case t.Failed > 0:
		return VerdictFailed
	case t.Passed == 0:
		return VerdictUnchecked
	}
	return VerdictPassed
}

// ConfigFailure reports steps of which at least one failed and every
// failed one failed for how the run was set up (kind gate, input,
// approval or policy: a write the gate refused, an input missing, a step
// edited since it was approved, a call the policy held back), not for
// anything a server did or returned.
func ConfigFailure(steps []StepRecord) bool {
	failed := false
	for _, s := range steps {
		if s.Outcome != Failed {
			continue
		}
		if s.Kind != KindGate && s.Kind != KindInput && s.Kind != KindApproval && s.Kind != KindPolicy {
			return false
		}
		failed = true
	}
	return failed
}

// RunVerdict is the record's verdict: Verdict when it was written, and
// for a record written before verdicts existed, the one its steps give.
func (r *Record) RunVerdict() Verdict {
	if r.Verdict != "" {
		return r.Verdict
	}
	return DeriveVerdict(CountSteps(r.Steps))
}

// timestampLayout is JavaScript's Date.prototype.toISOString format.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t in UTC with millisecond precision, the format of
// StartedAt and FinishedAt.
func Timestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// Millis converts a duration to whole milliseconds, rounding down.
func Millis(d time.Duration) int64 { return int64(d / time.Millisecond) }
