package receipt

import (
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/runtime"
)

// writeHeal writes what escalation did for a step: the level that healed
// it and why, or how far it climbed without healing; the tokens it spent;
// and whether the heal reached the skill file.
func writeHeal(w io.Writer, sr *runtime.StepResult, s Style) {
	h := sr.Heal
	if h == nil || (h.Attempted == 0 && h.Level == 0) {
		return
	}
	if h.Level > 0 {
		fmt.Fprintf(w, "                 %s\n", s.paint(ansiGreen, fmt.Sprintf("↻ healed at L%d: %s", h.Level, h.Reason)))
	} else {
		fmt.Fprintf(w, "                 escalation tried %s, did not heal\n", levelsTried(h.Attempted))
	}
	if u := sr.Record.LLM; u != nil {
		fmt.Fprintf(w, "                 LLM tokens: %d (%d input, %d output) [measured]\n", u.InputTokens+u.OutputTokens, u.InputTokens, u.OutputTokens)
	}
	switch {
	case h.Level == 0:
	case h.NotSaved != nil:
		fmt.Fprintf(w, "                 %s\n", s.paint(ansiYellow, "⚠ NOT written back, so the next run will diverge again: "+h.NotSaved.Error()))
	default:
		fmt.Fprintf(w, "                 written back to the skill file, with a changelog line\n")
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
func writeHealed(w io.Writer, res *runtime.Result) {
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
