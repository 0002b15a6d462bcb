package receipt

import (
	"fmt"
	"io"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
)

// Progress writes step lines live on a terminal: a "running" line when a
// step starts, replaced by the step's result line when it ends.
type Progress struct {
	W     io.Writer
	Style Style
	// File is the skill file as given, for the file:line of failures.
	File string
	// running is set while a step's running line is showing.
	running bool
}

// Start shows the step as running. The line is overwritten by Done.
func (p *Progress) Start(st *ast.Step) {
	p.running = true
	fmt.Fprintf(p.W, "  %s %3d  %s", p.Style.paint(ansiDim, fmt.Sprintf("%-9s", "RUN")), st.Number, termtext.Line(st.Title))
}

// Done replaces the running line with the step's result.
func (p *Progress) Done(sr *replay.StepResult) {
	if p.running { // a step skipped from the start has no running line
		fmt.Fprint(p.W, "\r\x1b[K")
		p.running = false
	}
	Step(p.W, p.File, sr, p.Style)
}
