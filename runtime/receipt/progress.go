package receipt

import (
	"fmt"
	"io"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/runlog"
)

// Progress writes step lines live on a terminal: a "running" line when a
// step starts, replaced by the step's result line when it ends.
type Progress struct {
	W     io.Writer
	Style Style
}

// Start shows the step as running. The line is overwritten by Done.
func (p *Progress) Start(st *ast.Step) {
	fmt.Fprintf(p.W, "  %s %3d  %s", p.Style.paint(ansiDim, fmt.Sprintf("%-9s", "RUN")), st.Number, st.Title)
}

// Done replaces the running line with the step's result.
func (p *Progress) Done(sr *runtime.StepResult) {
	if sr.Record.Outcome != runlog.Skipped { // a skipped step never started
		fmt.Fprint(p.W, "\r\x1b[K")
	}
	Step(p.W, sr, p.Style)
}
