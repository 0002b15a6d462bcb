package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Entry is one record read back from a history file.
type Entry struct {
	// Line is the 1-based line the record was on.
	Line   int
	Record Record
	// Legacy is true for a record written before the honest totals existed
	// (no totals.unchecked or totals.skipped). Its Totals have been replaced
	// by counts derived from its steps, and its own totals.passed, which
	// counted unchecked steps as passed, is discarded.
	Legacy bool
	// Inconsistent is true when a current-shaped record's stored totals do
	// not match its steps. Record.Totals keeps what was stored.
	Inconsistent bool
}

// Corrupt is a history line that is not a run record.
type Corrupt struct {
	Line int
	Err  error
}

// Error renders the problem as "line N: reason".
func (c Corrupt) Error() string { return fmt.Sprintf("line %d: %v", c.Line, c.Err) }

// History is the content of a run-history file.
type History struct {
	Entries []Entry
	// Corrupt lists the lines that were skipped; blank lines are not counted.
	Corrupt []Corrupt
}

// storedRecord mirrors Record with pointers, to tell a missing field from a
// zero one.
type storedRecord struct {
	Skill      *string       `json:"skill"`
	StartedAt  *string       `json:"startedAt"`
	FinishedAt *string       `json:"finishedAt"`
	Passed     *bool         `json:"passed"`
	Steps      *[]storedStep `json:"steps"`
	Totals     *storedTotals `json:"totals"`
	// Added later, absent from older records.
	Verdict     Verdict     `json:"verdict"`
	Path        string      `json:"path"`
	SkillSHA256 string      `json:"skillSha256"`
	Provenance  *Provenance `json:"provenance"`
	Servers     []ServerUse `json:"servers"`
	Injected    *Injection  `json:"injected"`
	// OpenQuestions: the CI report's count and annotations read them.
	OpenQuestions []OpenQuestion `json:"openQuestions"`
}

type storedStep struct {
	N                   *int      `json:"n"`
	Title               *string   `json:"title"`
	Level               int       `json:"level"`
	Outcome             Outcome   `json:"outcome"`
	Ms                  int64     `json:"ms"`
	Failures            []string  `json:"failures"`
	LLM                 *LLMUsage `json:"llm"`
	EscalationAttempted *int      `json:"escalationAttempted"`
	Why                 *Why      `json:"why"`
	// Added later, absent from older records.
	Kind        Kind                       `json:"kind"`
	Action      *ActionRecord              `json:"action"`
	Binds       map[string]json.RawMessage `json:"binds"`
	Observation *Digest                    `json:"observation"`
	Attempts    int                        `json:"attempts"`
	Tries       []Digest                   `json:"tries"`
	Skip        string                     `json:"skip"`
}

type storedTotals struct {
	Steps           int   `json:"steps"`
	Passed          int   `json:"passed"`
	Unchecked       *int  `json:"unchecked"`
	Skipped         *int  `json:"skipped"`
	Failed          int   `json:"failed"`
	Ms              int64 `json:"ms"`
	LLMInputTokens  int64 `json:"llmInputTokens"`
	LLMOutputTokens int64 `json:"llmOutputTokens"`
	Interrupted     int   `json:"interrupted"`
}

// Read parses a history file. Lines that are not valid records are
// collected in Corrupt and reading goes on; only an I/O error stops it.
func Read(r io.Reader) (*History, error) {
	h := &History{}
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if e, perr := parseLine(line); perr != nil {
				h.Corrupt = append(h.Corrupt, Corrupt{Line: n, Err: perr})
			} else {
				e.Line = n
				h.Entries = append(h.Entries, e)
			}
		}
		if errors.Is(err, io.EOF) {
			return h, nil
		}
		if err != nil {
			return h, err
		}
	}
}

// parseLine decodes and checks one record.
func parseLine(line []byte) (Entry, error) {
	var s storedRecord
	if err := json.Unmarshal(line, &s); err != nil {
		return Entry{}, err
	}
	switch {
	case s.Skill == nil:
		return Entry{}, errors.New(`missing "skill"`)
	case s.StartedAt == nil || s.FinishedAt == nil:
		return Entry{}, errors.New(`missing "startedAt" or "finishedAt"`)
	case s.Passed == nil:
		return Entry{}, errors.New(`missing "passed"`)
	case s.Steps == nil:
		return Entry{}, errors.New(`missing "steps"`)
	case s.Totals == nil:
		return Entry{}, errors.New(`missing "totals"`)
	}
	rec := Record{Skill: *s.Skill, StartedAt: *s.StartedAt, FinishedAt: *s.FinishedAt, Passed: *s.Passed,
		Verdict: s.Verdict, Path: s.Path, SkillSHA256: s.SkillSHA256, Provenance: s.Provenance, Servers: s.Servers, Injected: s.Injected,
		OpenQuestions: s.OpenQuestions}
	for i, st := range *s.Steps {
		if st.N == nil || st.Title == nil {
			return Entry{}, fmt.Errorf(`step %d: missing "n" or "title"`, i+1)
		}
		if !st.Outcome.Valid() {
			return Entry{}, fmt.Errorf("step %d: unknown outcome %q", *st.N, st.Outcome)
		}
		rec.Steps = append(rec.Steps, StepRecord{
			N: *st.N, Title: *st.Title, Level: st.Level, Outcome: st.Outcome, Ms: st.Ms,
			Failures: st.Failures, LLM: st.LLM, EscalationAttempted: st.EscalationAttempted, Why: st.Why,
			Kind: st.Kind, Action: st.Action, Binds: st.Binds, Observation: st.Observation, Attempts: st.Attempts, Tries: st.Tries, Skip: st.Skip,
		})
	}
	derived := CountSteps(rec.Steps)
	t := s.Totals
	if t.Unchecked == nil || t.Skipped == nil {
		rec.Totals = derived
		return Entry{Record: rec, Legacy: true}, nil
	}
	rec.Totals = Totals{
		Steps: t.Steps, Passed: t.Passed, Unchecked: *t.Unchecked, Skipped: *t.Skipped, Failed: t.Failed,
		Ms: t.Ms, LLMInputTokens: t.LLMInputTokens, LLMOutputTokens: t.LLMOutputTokens, Interrupted: t.Interrupted,
	}
	return Entry{Record: rec, Inconsistent: rec.Totals != derived}, nil
}
