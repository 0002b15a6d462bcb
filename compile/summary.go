package compile

import (
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

// Summary is what a person reviews after a compile: the counts, the effect
// classes and every open question, word for word as in the skill file.
type Summary struct {
	// Output is the path the skill was written to; the caller fills it in.
	Output string `json:"output"`
	Name   string `json:"name"`
	// Trace is the trace file name the skill was compiled from.
	Trace   string       `json:"trace"`
	Calls   int          `json:"calls"`
	Steps   int          `json:"steps"`
	Asserts int          `json:"asserts"`
	Binds   int          `json:"binds"`
	Effects EffectCounts `json:"effects"`
	// StepEffects gives every step's effect class and its reason.
	StepEffects []StepEffect `json:"stepEffects"`
	// Inputs are the variables a run must supply (--var), in the order
	// the skill's preamble lists them: values the recording redacted.
	Inputs []string `json:"inputs"`
	// Questions are the open questions, in the order the skill lists them.
	Questions []Question `json:"openQuestions"`
}

// EffectCounts counts steps per effect class.
type EffectCounts struct {
	Read            int `json:"read"`
	IdempotentWrite int `json:"idempotent-write"`
	Destructive     int `json:"destructive"`
}

// StepEffect is one step's effect class and what decided it.
type StepEffect struct {
	Step int    `json:"step"`
	Tool string `json:"tool"`
	Classification
}

func (c *compiler) summary() Summary {
	s := Summary{Name: c.name(), Trace: oneLine(c.opts.Source), Calls: len(c.steps), Steps: len(c.steps), Binds: c.binds, Questions: c.q.sorted()}
	if s.Questions == nil {
		s.Questions = []Question{}
	}
	s.Inputs = []string{}
	for _, in := range c.inputOrder {
		s.Inputs = append(s.Inputs, in.name)
	}
	for _, st := range c.steps {
		if !st.counted {
			st.nAsserts, st.counted = len(c.asserts(st, nil)), true
		}
		s.Asserts += st.nAsserts
		switch st.class.Effect {
		case ast.EffectRead:
			s.Effects.Read++
		case ast.EffectIdempotentWrite:
			s.Effects.IdempotentWrite++
		default:
			s.Effects.Destructive++
		}
		s.StepEffects = append(s.StepEffects, StepEffect{Step: st.n, Tool: st.tool, Classification: *st.class})
	}
	return s
}

// WriteText prints the summary for a terminal: the output path and counts,
// the effect classes, and every open question verbatim.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Compiled %s — %s, %s, %s\n", s.Output, words.Count(s.Steps, "step"), words.Count(s.Asserts, "assert"), words.Count(s.Binds, "bind"))
	fmt.Fprintf(&b, "Effects: %d read, %d idempotent-write, %d destructive\n", s.Effects.Read, s.Effects.IdempotentWrite, s.Effects.Destructive)
	for _, c := range s.StepEffects {
		if c.Effect != ast.EffectRead {
			fmt.Fprintf(&b, "  step %d %s: %s (%s)\n", c.Step, c.Tool, c.Effect, c.Reason)
		}
	}
	if len(s.Questions) == 0 {
		b.WriteString("Open questions: none\n")
	} else {
		fmt.Fprintf(&b, "Open questions (%d):\n", len(s.Questions))
		for _, q := range s.Questions {
			b.WriteString("  - " + q.Text + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
