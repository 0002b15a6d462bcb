package receipt

import (
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/cost"
)

// writeHeal writes what escalation did for a step: the level that healed
// it, why, and the step's lines before and after; or how far it climbed
// without healing; the tokens it spent; and whether the heal reached the
// skill file.
func writeHeal(w io.Writer, sr *replay.StepResult, s Style) {
	h := sr.Heal
	if h == nil || (h.Attempted == 0 && h.Level == 0) {
		return
	}
	if h.Level > 0 {
		fmt.Fprintf(w, "                 %s\n", s.paint(ansiGreen, fmt.Sprintf("↻ healed at L%d: %s", h.Level, termtext.Line(h.Reason))))
		if why := sr.Record.Why; why != nil && (len(why.Before) > 0 || len(why.After) > 0) {
			writeLines(w, "before:", why.Before)
			writeLines(w, "after: ", why.After)
		}
	} else {
		fmt.Fprintf(w, "                 escalation tried %s, did not heal\n", levelsTried(h.Attempted))
	}
	if u := sr.Record.LLM; u != nil {
		fmt.Fprintf(w, "                 LLM tokens: %d (%d input, %d output) [measured]%s\n", u.InputTokens+u.OutputTokens, u.InputTokens, u.OutputTokens, costNote(u.Cost()))
	}
	switch {
	case h.Level == 0:
	case h.Proposal != "":
		fmt.Fprintf(w, "                 proposed, not written: the skill file is unchanged (--heal=propose)\n")
	case h.NotSaved != nil:
		fmt.Fprintf(w, "                 %s\n", s.paint(ansiYellow, "⚠ NOT written back, so the next run will diverge again: "+termtext.Line(h.NotSaved.Error())))
	default:
		fmt.Fprintf(w, "                 written back to the skill file, with a changelog line\n")
	}
}

// costNote is what a heal's tokens cost, as the receipt adds it to their
// line: " · cost $0.0027", with the tokens no price covered, or "" when
// no token was spent.
func costNote(micros, unpriced int64) string {
	switch {
	case micros == 0 && unpriced == 0:
		return ""
	case unpriced == 0:
		return " · cost " + cost.Micros(micros).String()
	case micros == 0:
		return fmt.Sprintf(" · cost: price unknown for %d tokens", unpriced)
	}
	return fmt.Sprintf(" · cost %s + price unknown for %d tokens", cost.Micros(micros), unpriced)
}

// writeLines writes one side of a heal's before/after block: the step's
// lines as its skill writes them, under a label.
func writeLines(w io.Writer, label string, lines []string) {
	if len(lines) == 0 {
		lines = []string{"(none)"}
	}
	for i, l := range lines {
		if i > 0 {
			label = "       "
		}
		fmt.Fprintf(w, "                 %s %s\n", label, termtext.Line(l))
	}
}

// levelsTried names the levels an escalation went through.
func levelsTried(top int) string {
	if top <= 1 {
		return "L1"
	}
	return "L1 and L2"
}

// writeHealed writes the footer line listing healed steps, if any.
func writeHealed(w io.Writer, res *replay.Result) {
	var healed []string
	for _, st := range res.Record.Steps {
		if st.Level > 0 {
			healed = append(healed, fmt.Sprintf("step %d at L%d", st.N, st.Level))
		}
	}
	if len(healed) > 0 {
		fmt.Fprintf(w, "  healed:       %s\n", strings.Join(healed, ", "))
	}
}
