package runlog

import "time"

// Outcome is what happened to one step of a run.
type Outcome string

// The four step outcomes.
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
)

// Valid reports whether o is one of the four outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case Passed, Unchecked, Failed, Skipped:
		return true
	}
	return false
}

// Record is one run of one skill. Field order and names are the on-disk
// format.
type Record struct {
	// Skill is the skill's frontmatter name.
	Skill string `json:"skill"`
	// StartedAt and FinishedAt are UTC timestamps with millisecond
	// precision, formatted by Timestamp.
	StartedAt  string `json:"startedAt"`
	FinishedAt string `json:"finishedAt"`
	// Passed is true when no step failed; an unchecked step does not fail a
	// run, but it is not counted as passed either.
	Passed bool         `json:"passed"`
	Steps  []StepRecord `json:"steps"`
	Totals Totals       `json:"totals"`
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
}

// LLMUsage is the token count summed over every escalation attempt of a step.
type LLMUsage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// Why explains a changed step with observed facts only.
type Why struct {
	// Trigger is the first failure of a failed step, verbatim.
	Trigger string `json:"trigger,omitempty"`
	// Change is what a successful heal changed ("L1: <reason>").
	Change string `json:"change,omitempty"`
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
		}
		t.Ms += s.Ms
		if s.LLM != nil {
			t.LLMInputTokens += s.LLM.InputTokens
			t.LLMOutputTokens += s.LLM.OutputTokens
		}
	}
	return t
}

// Finish fills in Totals and Passed from the steps.
func (r *Record) Finish() {
	r.Totals = CountSteps(r.Steps)
	r.Passed = r.Totals.Failed == 0
}

// timestampLayout is JavaScript's Date.prototype.toISOString format.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t in UTC with millisecond precision, the format of
// StartedAt and FinishedAt.
func Timestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// Millis converts a duration to whole milliseconds, rounding down.
func Millis(d time.Duration) int64 { return int64(d / time.Millisecond) }
