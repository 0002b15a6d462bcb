package receipt

import (
	"fmt"
	"io"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
)

// Progress writes step lines as the steps end. On a terminal (Terminal
// set) a "running" line shows while a step runs and is replaced by its
// result line; elsewhere — a CI log, a pipe — each result line is written
// plain when its step ends, with no cursor control, so that a log shows
// the run as it goes and ends with the same bytes the whole receipt would
// be.
type Progress struct {
	W     io.Writer
	Style Style
	// File is the skill file as given, for the file:line of failures.
	File string
	// Terminal says W is a terminal: the running line is shown.
	Terminal bool
	// running is set while a step's running line is showing.
	running bool
}

// Start shows the step as running. The line is overwritten by Done.
func (p *Progress) Start(st *ast.Step) {
	if !p.Terminal {
		return
	}
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
