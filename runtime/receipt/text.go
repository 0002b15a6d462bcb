package receipt

import (
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/runlog"
)

// Style chooses how a receipt looks.
type Style struct {
	// Color adds ANSI colours to outcome labels.
	Color bool
}

// ANSI colour codes for the outcome labels.
const (
	ansiReset  = "\x1b[0m"
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
)

// excerptLen bounds the body excerpt shown under a failed step.
const excerptLen = 160

// Text writes the whole receipt of one run.
func Text(w io.Writer, name string, res *runtime.Result, s Style) {
	Header(w, name, res.Record.Skill)
	for _, sr := range res.Steps {
		Step(w, sr, s)
	}
	Footer(w, res, s)
}

// Header writes the receipt's first line; name is the skill file as given.
func Header(w io.Writer, name, skill string) {
	fmt.Fprintf(w, "skill %s (%s)\n", skill, name)
}

// Step writes one step's line and, for a failed step, its failures.
func Step(w io.Writer, sr *runtime.StepResult, s Style) {
	rec := sr.Record
	label, color := outcomeLabel(rec.Outcome)
	fmt.Fprintf(w, "  %s %3d  %s", s.paint(color, fmt.Sprintf("%-9s", label)), rec.N, rec.Title)
	switch rec.Outcome {
	case runlog.Skipped:
		fmt.Fprintln(w, "  (not run: an earlier step failed)")
		return
	case runlog.Unchecked:
		fmt.Fprintf(w, "  %dms  (no asserts: it ran, nothing was verified)\n", rec.Ms)
		writeHeal(w, sr, s)
		return
	}
	fmt.Fprintf(w, "  %dms\n", rec.Ms)
	for _, f := range sr.Failures {
		writeFailure(w, f)
	}
	if rec.Outcome == runlog.Failed && sr.Observation != nil {
		fmt.Fprintf(w, "                 response: status %d, body %s\n", sr.Observation.Status, excerpt(sr.Observation.Body))
	}
	writeHeal(w, sr, s)
}

// writeFailure writes one failure, with expected and observed when known.
func writeFailure(w io.Writer, f runtime.Failure) {
	if f.Expr == "" || f.Expected == "" {
		fmt.Fprintf(w, "                 ✗ %s\n", f.Message)
		return
	}
	fmt.Fprintf(w, "                 ✗ %s\n", f.Expr)
	fmt.Fprintf(w, "                     expected: %s\n", f.Expected)
	fmt.Fprintf(w, "                     observed: %s\n", f.Observed)
}

// excerpt shows the start of a body on one line.
func excerpt(body string) string {
	if body == "" {
		return "(empty)"
	}
	flat := strings.Join(strings.Fields(body), " ")
	if len(flat) <= excerptLen {
		return flat
	}
	cut := excerptLen
	for cut > 0 && flat[cut]&0xC0 == 0x80 {
		cut--
	}
	return flat[:cut] + "…"
}

// Footer writes the totals, the measured replay time and token count, and
// the verdict.
func Footer(w io.Writer, res *runtime.Result, s Style) {
	t := res.Record.Totals
	fmt.Fprintf(w, "  steps:        %d total, %d passed, %d unchecked, %d failed, %d skipped\n",
		t.Steps, t.Passed, t.Unchecked, t.Failed, t.Skipped)
	if t.Unchecked > 0 {
		fmt.Fprintf(w, "                (unchecked steps ran without asserts; they are not counted as passed)\n")
	}
	fmt.Fprintf(w, "  replay time:  %s [measured]\n", formatDuration(res.Elapsed.Milliseconds(), res.Elapsed.Microseconds()))
	fmt.Fprintf(w, "  LLM tokens:   %d [measured]\n", t.LLMInputTokens+t.LLMOutputTokens)
	writeHealed(w, res)
	if res.Record.Passed {
		fmt.Fprintf(w, "  result:       %s\n", s.paint(ansiGreen, "PASSED"))
	} else {
		fmt.Fprintf(w, "  result:       %s\n", s.paint(ansiRed, "FAILED"))
	}
}

// formatDuration shows whole milliseconds, or a fraction below 10ms.
func formatDuration(ms, us int64) string {
	if ms >= 10 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fms", float64(us)/1000)
}

func outcomeLabel(o runlog.Outcome) (string, string) {
	switch o {
	case runlog.Passed:
		return "PASS", ansiGreen
	case runlog.Unchecked:
		return "UNCHECKED", ansiYellow
	case runlog.Failed:
		return "FAIL", ansiRed
	}
	return "SKIP", ansiDim
}

// paint wraps text in a colour when the style has colour.
func (s Style) paint(color, text string) string {
	if !s.Color {
		return text
	}
	return color + text + ansiReset
}
