package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/runtime"
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
}

type dryPlan struct {
	Skill  string    `json:"skill"`
	DryRun bool      `json:"dryRun"`
	Steps  []dryStep `json:"steps"`
}

// dryRunSkills prints every skill's filled actions. Nothing is called or
// written. A step whose action cannot be filled makes the exit status 1,
// since the real run would fail there.
func dryRunSkills(out io.Writer, skills []*loadedSkill, opts runtime.Options, asJSON bool) error {
	// Buffered: a plan is two lines a step, each otherwise its own write.
	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	broken := false
	for _, l := range skills {
		plan := runtime.DryRun(l.skill, opts)
		for _, p := range plan {
			broken = broken || p.Err != nil
		}
		if asJSON {
			writeDryJSON(w, l.skill.Name(), plan)
		} else {
			writeDryText(w, l, plan, opts.SkillServers)
		}
	}
	if broken {
		return silentExit(exitFailed)
	}
	return nil
}

// writeDryText prints the plan for reading; everything that came from the
// skill or its inputs is escaped for the terminal.
func writeDryText(w io.Writer, l *loadedSkill, plan []runtime.PlannedStep, skillServers bool) {
	line := termtext.Line
	fmt.Fprintf(w, "dry run of skill %s (%s): nothing is called, nothing is written\n", line(l.skill.Name()), line(l.path))
	if skillServers && len(l.skill.Servers) > 0 {
		var list []string
		for _, sv := range l.skill.Servers {
			list = append(list, fmt.Sprintf("%s (%s)", sv.Name, sv.Command))
		}
		fmt.Fprintf(w, "  servers recorded in the skill, not started by a dry run: %s\n", line(strings.Join(list, ", ")))
	}
	for _, p := range plan {
		gate := ""
		if p.NeedsFlag != "" {
			gate = ", refused without " + p.NeedsFlag
		}
		fmt.Fprintf(w, "  %3d  %s [%s%s]\n", p.Step.Number, line(p.Step.Title), line(string(p.Effect)), gate)
		if p.Err != nil {
			fmt.Fprintf(w, "         ✗ %s\n", line(p.Err.Error()))
			continue
		}
		fmt.Fprintf(w, "         %s\n", line(p.Action.String()))
	}
}

func writeDryJSON(w io.Writer, skill string, plan []runtime.PlannedStep) {
	out := dryPlan{Skill: skill, DryRun: true, Steps: []dryStep{}}
	for _, p := range plan {
		st := dryStep{N: p.Step.Number, Title: p.Step.Title, Tool: p.Action.Tool, Args: p.Action.Args, Effect: string(p.Effect), Needs: p.NeedsFlag}
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
