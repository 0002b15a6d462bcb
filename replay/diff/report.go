// Package diff compares two replays, or a recording and a replay, step
// by step, and says for each step whether it is the SAME or DRIFTED, with
// the JSON paths that differ (`reelier diff`, docs/replay.md §11).
//
// Two kinds of input are compared:
//
//   - two traces (a recording from `reelier mcp`, a replay from
//     `reelier run --trace`, or any two): calls are lined up by tool name
//     (a longest common subsequence, so one extra call does not shift
//     every later one), and each pair's arguments and results are
//     compared value by value, the result as the skill sees it — its
//     status, and its json document or its body text;
//   - two run records of a skill: steps by number; their filled
//     arguments, the values their binds took, their outcome, and the
//     digest of what the tool returned. A run record keeps no result
//     bodies, so a result that changed is DRIFTED without paths.
//
// With the skill at hand (Profile), a value the skill only type-checks
// (`json.id is string`) is compared by type, not value.
package diff

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/reelier/reelier/internal/termtext"
)

// The two words of a step's verdict.
const (
	Same    = "SAME"
	Drifted = "DRIFTED"
)

// Report is a finished comparison.
type Report struct {
	// Kind is "traces" or "runs".
	Kind string `json:"kind"`
	// A and B describe the two sides, first and second.
	A string `json:"a"`
	B string `json:"b"`
	// Skill is the skill file whose checks decided which values are
	// type-only; empty when none was used.
	Skill string `json:"skill,omitempty"`
	// Notes say what the reader should know about the comparison as a
	// whole (a skill that changed between two runs, records too old to
	// hold actions).
	Notes []string `json:"notes,omitempty"`
	Steps []*Step  `json:"steps"`

	// nameA and nameB are the sides' short names (file names, run
	// numbers) for "only in …".
	nameA, nameB string
}

// Step is one step (or call) compared.
type Step struct {
	// N is the skill's step number, or the call's position (from 1) when
	// no skill step is known for it.
	N     int    `json:"n"`
	Tool  string `json:"tool,omitempty"`
	Title string `json:"title,omitempty"`
	// Verdict is SAME or DRIFTED.
	Verdict string `json:"verdict"`
	// Changes are the differences that make the step DRIFTED.
	Changes []Change `json:"changes,omitempty"`
	// Ignored are value changes at paths the skill only type-checks.
	Ignored []Change `json:"ignored,omitempty"`
	// Volatile are changes between two values that change on every run
	// (timestamps, durations, request ids; see volatile): shown, but they
	// do not make the step DRIFTED.
	Volatile []Change `json:"volatile,omitempty"`
	// Only is "a" or "b" when the step is on one side only.
	Only string `json:"only,omitempty"`
	// DigestOnly is set when what the tool returned changed and only its
	// digest was recorded, so the paths are not known.
	DigestOnly bool `json:"digestOnly,omitempty"`
}

// settle sets the step's verdict from its changes, after moving the
// volatile ones apart.
func (s *Step) settle() {
	kept := s.Changes[:0]
	for _, c := range s.Changes {
		if k := volatile(c); k != "" {
			c.Volatile = k
			s.Volatile = append(s.Volatile, c)
			continue
		}
		kept = append(kept, c)
	}
	s.Changes = kept
	if len(s.Changes) == 0 {
		s.Changes = nil
	}
	s.Verdict = Same
	if len(s.Changes) > 0 || s.Only != "" {
		s.Verdict = Drifted
	}
}

// Drifted reports whether any step drifted.
func (r *Report) Drifted() bool {
	for _, s := range r.Steps {
		if s.Verdict == Drifted {
			return true
		}
	}
	return false
}

// counts returns how many steps are the same and how many drifted.
func (r *Report) counts() (same, drifted int) {
	for _, s := range r.Steps {
		if s.Verdict == Drifted {
			drifted++
		} else {
			same++
		}
	}
	return same, drifted
}

// maxLines bounds the changes a step shows in text; --json has them all.
const maxLines = 20

// WriteText prints the report for a person:
//
//	diff: recording.jsonl (…) → out.jsonl (…)
//	  SAME      1  create_item  Create an item
//	  DRIFTED   2  get_item  Read it back
//	               json.status: "open" → "closed"
//	steps:   2 compared, 1 same, 1 drifted
//	result:  DRIFTED
//
// Every line goes through termtext.Line: names, titles and values come
// from traces, records and skills, and must not steer the terminal.
func (r *Report) WriteText(w io.Writer) {
	put := func(format string, args ...any) { fmt.Fprintln(w, termtext.Line(fmt.Sprintf(format, args...))) }
	put("diff: %s → %s", r.A, r.B)
	if r.Skill != "" {
		put("skill: %s (values it checks only by type or shape are compared that way)", r.Skill)
	}
	for _, n := range r.Notes {
		put("note: %s", n)
	}
	const indent = "               "
	for _, s := range r.Steps {
		line := fmt.Sprintf("  %-8s %2d", s.Verdict, s.N)
		if s.Tool != "" {
			line += "  " + s.Tool
		}
		if s.Title != "" && s.Title != s.Tool {
			line += "  " + s.Title
		}
		put("%s", line)
		switch s.Only {
		case "a":
			put("%sonly in %s: %s has no such step", indent, r.nameA, r.nameB)
		case "b":
			put("%sonly in %s: %s has no such step", indent, r.nameB, r.nameA)
		}
		for i, c := range s.Changes {
			if i == maxLines {
				put("%s… and %d more changes (--json lists them all)", indent, len(s.Changes)-maxLines)
				break
			}
			put("%s%s", indent, c.text())
			writeLines(put, indent+"  ", c.Lines)
		}
		if s.DigestOnly {
			put("%s(a run record keeps only a digest of each result: what changed inside it is not known; compare traces from run --trace for paths)", indent)
		}
		for i, c := range s.Ignored {
			if i == maxLines {
				put("%s… and %d more ignored changes", indent, len(s.Ignored)-maxLines)
				break
			}
			put("%signored %s", indent, c.text())
		}
		for i, c := range s.Volatile {
			if i == maxLines {
				put("%s… and %d more volatile changes", indent, len(s.Volatile)-maxLines)
				break
			}
			put("%svolatile %s (%s, which changes from run to run)", indent, c.text(), c.Volatile)
			writeLines(put, indent+"  ", c.Lines)
		}
	}
	same, drifted := r.counts()
	put("steps:   %d compared, %d same, %d drifted", len(r.Steps), same, drifted)
	verdict := Same
	if drifted > 0 {
		verdict = Drifted
	}
	put("result:  %s", verdict)
}

// writeLines prints a line diff under its change, at most maxLines lines
// (--json has them all).
func writeLines(put func(string, ...any), indent string, lines []string) {
	for i, l := range lines {
		if i == maxLines {
			put("%s… %d more diff lines (--json lists them all)", indent, len(lines)-maxLines)
			return
		}
		put("%s%s", indent, l)
	}
}

// text renders a change on one line.
func (c Change) text() string {
	from, to := c.From, c.To
	if c.Kind == Added {
		from = "(absent)"
	}
	if c.Kind == Removed {
		to = "(absent)"
	}
	s := c.Path + ": " + from + " → " + to
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}

// WriteJSON prints the report as one JSON object, with "drifted" beside
// the fields of Report.
func (r *Report) WriteJSON(w io.Writer) error {
	out := struct {
		*Report
		Drifted bool `json:"drifted"`
	}{r, r.Drifted()}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
