package suite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/replay"
)

// dryStep is one step of `run --dry-run --json`.
type dryStep struct {
	N      int             `json:"n"`
	Title  string          `json:"title"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Effect string          `json:"effect"`
	// Needs names the flag the step's effect requires, when not given.
	Needs string `json:"needs,omitempty"`
	Error string `json:"error,omitempty"`
	// Picks are the step's selection binds, picked at run time.
	Picks []string `json:"picks,omitempty"`
}

type dryPlan struct {
	Skill  string    `json:"skill"`
	DryRun bool      `json:"dryRun"`
	Steps  []dryStep `json:"steps"`
}

// dryRunSkills prints every skill's filled actions. Nothing is called or
// written. A step whose action cannot be filled makes the exit status 1,
// since the real run would fail there.
func dryRunSkills(out io.Writer, skills []*loader.Skill, opts replay.Options, asJSON bool) error {
	// Buffered: a plan is two lines a step, each otherwise its own write.
	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	broken := false
	for _, l := range skills {
		o := opts
		if l.Path != loader.StdinName {
			o.Path = filepath.ToSlash(l.Path)
		}
		plan := replay.DryRun(l.Skill, o)
		for _, p := range plan {
			broken = broken || p.Err != nil
		}
		if asJSON {
			writeDryJSON(w, l.Skill.Name(), plan)
		} else {
			WriteDryText(w, l.Path, l.Skill, plan, opts.SkillServers)
		}
	}
	if broken {
		return exitstatus.Silent(exitstatus.Failed)
	}
	return nil
}

// WriteDryText prints the plan for reading; everything that came from the
// skill or its inputs is escaped for the terminal. Two lines a step, written
// piece by piece into w (no format string to interpret and no boxed
// arguments a step).
func WriteDryText(w *bufio.Writer, path string, skill *ast.Skill, plan []replay.PlannedStep, skillServers bool) {
	line := termtext.Line
	fmt.Fprintf(w, "dry run of skill %s (%s): nothing is called, nothing is written\n", line(skill.Name()), line(path))
	if skillServers && len(skill.Servers) > 0 {
		var list []string
		for _, sv := range skill.Servers {
			list = append(list, fmt.Sprintf("%s (%s)", sv.Name, sv.Command))
		}
		fmt.Fprintf(w, "  servers recorded in the skill, not started by a dry run: %s\n", line(strings.Join(list, ", ")))
	}
	var num []byte
	for _, p := range plan {
		// "  %3d  %s [%s%s]\n": the step number right-aligned in three
		// columns, as fmt pads it.
		num = strconv.AppendInt(num[:0], int64(p.Step.Number), 10)
		w.WriteString("  ")
		for i := len(num); i < 3; i++ {
			w.WriteByte(' ')
		}
		w.Write(num)
		w.WriteString("  ")
		w.WriteString(line(p.Step.Title))
		w.WriteString(" [")
		w.WriteString(line(string(p.Effect)))
		if p.NeedsFlag != "" {
			w.WriteString(", refused without ")
			w.WriteString(p.NeedsFlag)
		}
		w.WriteString("]\n")
		if p.Err != nil {
			w.WriteString("         ✗ ")
			w.WriteString(line(p.Err.Error()))
			w.WriteByte('\n')
			continue
		}
		// The action as Action.String renders it, tool and arguments
		// escaped apart: escaping goes character by character, so the
		// result is the same. The arguments are escaped from their bytes
		// (Line returns its argument when nothing needs escaping, and the
		// text is written before anything else touches it).
		w.WriteString("         ")
		w.WriteString(line(p.Action.Tool))
		w.WriteByte(' ')
		w.WriteString(line(unsafe.String(unsafe.SliceData(p.Action.Args), len(p.Action.Args))))
		w.WriteByte('\n')
		for _, pick := range p.Picks {
			w.WriteString("         picks at run time: ")
			w.WriteString(line(pick))
			w.WriteByte('\n')
		}
	}
}

func writeDryJSON(w io.Writer, skill string, plan []replay.PlannedStep) {
	out := dryPlan{Skill: skill, DryRun: true, Steps: []dryStep{}}
	for _, p := range plan {
		st := dryStep{N: p.Step.Number, Title: p.Step.Title, Tool: p.Action.Tool, Args: p.Action.Args, Effect: string(p.Effect), Needs: p.NeedsFlag, Picks: p.Picks}
		if p.Err != nil {
			st.Error = p.Err.Error()
			st.Args = json.RawMessage("null")
		}
		out.Steps = append(out.Steps, st)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(out)
}
