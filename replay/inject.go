package replay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// ParseInjection reads a --fail value, N or N=KIND (KIND error when left
// out). It checks the form only; CheckInjection checks N against a skill.
func ParseInjection(v string) (*runlog.Injection, error) {
	n, kind, hasKind := strings.Cut(v, "=")
	if !hasKind {
		kind = runlog.InjectError
	}
	step, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || step < 1 {
		return nil, fmt.Errorf("--fail %q: want a step number, optionally =KIND (%s), such as --fail 2 or --fail 2=timeout", v, strings.Join(runlog.InjectKinds, ", "))
	}
	for _, k := range runlog.InjectKinds {
		if kind == k {
			return &runlog.Injection{Step: step, Kind: kind}, nil
		}
	}
	return nil, fmt.Errorf("--fail %q: unknown kind %q; the kinds are %s", v, kind, strings.Join(runlog.InjectKinds, ", "))
}

// CheckInjection says whether the skill has the step an injection names:
// nil, or an error naming the step count.
func CheckInjection(skill *ast.Skill, inj *runlog.Injection) error {
	for _, st := range skill.Steps {
		if st.Number == inj.Step {
			return nil
		}
	}
	steps := "no steps"
	switch n := len(skill.Steps); {
	case n == 1:
		steps = "1 step (step 1)"
	case n > 1:
		steps = fmt.Sprintf("%d steps (%d to %d)", n, skill.Steps[0].Number, skill.Steps[n-1].Number)
	}
	return fmt.Errorf("--fail %d=%s: the skill has no step %d; it has %s", inj.Step, inj.Kind, inj.Step, steps)
}

// injectedNote is what an injected failure's message ends with.
func injectedNote(inj *runlog.Injection) string {
	return fmt.Sprintf("(injected by --fail %d=%s: not a real failure)", inj.Step, inj.Kind)
}

// injectedCall stands in for the call of the step an injection names:
// nothing is sent. error: an error result, as a tool reporting a failure
// answers; timeout: the call's time limit passing.
func (r *runner) injectedCall(inj *runlog.Injection, t tool.Tool) (*tool.Observation, error) {
	if inj.Kind == runlog.InjectTimeout {
		return nil, fmt.Errorf("no answer within %s %s", r.callLimit(t), injectedNote(inj))
	}
	text := "the tool failed " + injectedNote(inj)
	body := `{"content":[{"type":"text","text":` + string(jsondata.AppendString(nil, text)) + `}],"isError":true}`
	return tool.ObserveToolResult([]byte(body))
}

// injectedDrift is the drift check's finding for an injected schema
// change: the step's tool, its input schema changed.
func injectedDrift(skill *ast.Skill, inj *runlog.Injection) runlog.DriftedTool {
	d := runlog.DriftedTool{Changes: []string{"input schema changed " + injectedNote(inj)}}
	for _, st := range skill.Steps {
		if st.Number == inj.Step && st.Action != nil {
			d.Tool = st.Action.Tool
			if sv := skill.ServerOf(d.Tool); sv != nil {
				d.Server = sv.Name
			}
		}
	}
	return d
}
