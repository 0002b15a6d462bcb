package runlog

import (
	"slices"
)

// Summary is a skill's run history in figures. Every count is derived from
// the step outcomes of each record, so legacy records count honestly too.
type Summary struct {
	Skill string `json:"skill"`
	// Runs is the number of records read, counted by verdict: PassedRuns
	// (no step failed and something was checked), FailedRuns, and
	// UncheckedRuns and InterruptedRuns. PassRate is PassedRuns/Runs, 0
	// when there are no runs: an unchecked run is not a pass.
	Runs            int `json:"runs"`
	PassedRuns      int `json:"passedRuns"`
	FailedRuns      int `json:"failedRuns"`
	UncheckedRuns   int `json:"uncheckedRuns"`
	InterruptedRuns int `json:"interruptedRuns"`
	// ConfigRuns are the runs their set-up stopped (verdict config: a
	// refused write, an input that could not be sent); not failures of the
	// servers, and absent when there are none.
	ConfigRuns int     `json:"configRuns,omitempty"`
	PassRate   float64 `json:"passRate"`
	// Steps counts step outcomes over every run.
	Steps StepCounts `json:"steps"`
	// HealedAt counts the steps that ran (skipped ones excluded) by the
	// level that made them hold: L0 is plain replay or never healed.
	HealedAt LevelCounts `json:"healedAt"`
	// Escalation compares, per level, how many steps tried it with how many
	// it healed.
	Escalation Escalation `json:"escalation"`
	// LLMInputTokens and LLMOutputTokens are summed over every step.
	LLMInputTokens  int64 `json:"llmInputTokens"`
	LLMOutputTokens int64 `json:"llmOutputTokens"`
	// LLMCostMicroUSD is what those tokens cost, in millionths of a US
	// dollar, as the runs recorded it; LLMUnpricedTokens are the tokens
	// whose cost no record knows (a model without a price, or a record
	// written before costs were), which the sum leaves out.
	LLMCostMicroUSD   int64 `json:"llmCostMicroUsd"`
	LLMUnpricedTokens int64 `json:"llmUnpricedTokens"`
	// Latency is over the steps that ran.
	Latency Latency `json:"latencyMs"`
	// LegacyRecords were written before the honest totals; their counts come
	// from their steps.
	LegacyRecords int `json:"legacyRecords"`
	// InconsistentRecords carry stored totals that disagree with their steps.
	InconsistentRecords int `json:"inconsistentRecords"`
	// CorruptLines were skipped because they are not run records.
	CorruptLines int `json:"corruptLines"`
}

// StepCounts counts step outcomes.
type StepCounts struct {
	Total     int `json:"total"`
	Passed    int `json:"passed"`
	Unchecked int `json:"unchecked"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
}

// LevelCounts counts steps per escalation level.
type LevelCounts struct {
	L0 int `json:"L0"`
	L1 int `json:"L1"`
	L2 int `json:"L2"`
}

// Escalation is attempts against heals for each escalation level.
type Escalation struct {
	L1Attempts int `json:"L1Attempts"`
	L1Heals    int `json:"L1Heals"`
	L2Attempts int `json:"L2Attempts"`
	L2Heals    int `json:"L2Heals"`
}

// Latency holds step-latency percentiles in milliseconds (nearest rank) and
// the number of steps they were taken over.
type Latency struct {
	P50     int64 `json:"p50"`
	P95     int64 `json:"p95"`
	Samples int   `json:"samples"`
}

// Summarize computes the bench figures for a history.
func Summarize(skill string, h *History) Summary {
	s := Summary{Skill: skill, CorruptLines: len(h.Corrupt)}
	var ms []int64
	for _, e := range h.Entries {
		s.Runs++
		if e.Legacy {
			s.LegacyRecords++
		}
		if e.Inconsistent {
			s.InconsistentRecords++
		}
		t := CountSteps(e.Record.Steps)
		switch e.Record.RunVerdict() {
		case VerdictPassed:
			s.PassedRuns++
		case VerdictFailed:
			s.FailedRuns++
		case VerdictConfig:
			s.ConfigRuns++
		case VerdictUnchecked:
			s.UncheckedRuns++
		case VerdictInterrupted:
			s.InterruptedRuns++
		}
		s.Steps.Total += t.Steps
		s.Steps.Passed += t.Passed
		s.Steps.Unchecked += t.Unchecked
		s.Steps.Failed += t.Failed
		s.Steps.Skipped += t.Skipped
		s.LLMInputTokens += t.LLMInputTokens
		s.LLMOutputTokens += t.LLMOutputTokens
		micros, unpriced := LLMCost(e.Record.Steps)
		s.LLMCostMicroUSD += micros
		s.LLMUnpricedTokens += unpriced
		for _, st := range e.Record.Steps {
			if st.Outcome == Skipped {
				continue
			}
			ms = append(ms, st.Ms)
			s.countLevels(st)
		}
	}
	if s.Runs > 0 {
		s.PassRate = float64(s.PassedRuns) / float64(s.Runs)
	}
	slices.Sort(ms)
	s.Latency = Latency{P50: percentile(ms, 50), P95: percentile(ms, 95), Samples: len(ms)}
	return s
}

func (s *Summary) countLevels(st StepRecord) {
	switch st.Level {
	case 1:
		s.HealedAt.L1++
		s.Escalation.L1Heals++
	case 2:
		s.HealedAt.L2++
		s.Escalation.L2Heals++
	default:
		s.HealedAt.L0++
	}
	if st.EscalationAttempted != nil {
		if *st.EscalationAttempted >= 1 {
			s.Escalation.L1Attempts++
		}
		if *st.EscalationAttempted >= 2 {
			s.Escalation.L2Attempts++
		}
	}
}

// percentile returns the nearest-rank p-th percentile of sorted values, or 0.
func percentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

// ForFile keeps the entries of a history that belong to one skill file:
// those whose record names path, and those written before records named
// their file (which cannot be told apart and are kept). Two files that
// share a frontmatter name share a history file; this separates them.
func (h *History) ForFile(path string) (kept *History, unattributed int) {
	kept = &History{Corrupt: h.Corrupt}
	for _, e := range h.Entries {
		switch e.Record.Path {
		case path:
			kept.Entries = append(kept.Entries, e)
		case "":
			kept.Entries = append(kept.Entries, e)
			unattributed++
		}
	}
	return kept, unattributed
}
