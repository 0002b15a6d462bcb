package astdump

import (
	"encoding/json"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// Step is one step of `reelier parse --json` output.
type Step struct {
	N       int             `json:"n"`
	Title   string          `json:"title"`
	Intent  string          `json:"intent"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Asserts []string        `json:"asserts"`
	Binds   []string        `json:"binds"`
	Effect  string          `json:"effect"`
	// Selections types the step's selection asserts and binds (SPEC.md
	// §5.1); absent when it has none, so other steps print as before.
	Selections []Selection `json:"selections,omitempty"`
}

// Summary is the skill of `reelier parse --json`.
type Summary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Frontmatter is the whole frontmatter as a host reading its YAML
	// gets it (SPEC.md §2), keys in file order.
	Frontmatter ast.OrderedMap `json:"frontmatter"`
	Steps       []Step         `json:"steps"`
}

// Error is one rejection; line and column are 1-based, the column
// counted in characters (Unicode code points), as every diagnostic is.
type Error struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Step    *int   `json:"step"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Result is `reelier parse --json`: the skill when it parses, its
// errors otherwise.
type Result struct {
	OK     bool     `json:"ok"`
	Skill  *Summary `json:"skill,omitempty"`
	Errors []Error  `json:"errors,omitempty"`
}

// Parse is the result `reelier parse --json` prints for a parsed skill
// and its diagnostics: every diagnostic when one is an error, the
// summary otherwise.
func Parse(skill *ast.Skill, diags ast.Diagnostics) Result {
	failed := diags.HasErrors()
	res := Result{OK: !failed}
	if !failed {
		res.Skill = Summarize(skill)
		return res
	}
	for _, d := range diags {
		e := Error{Line: int(d.Range.Start.Line), Column: int(d.Range.Start.Column), Code: d.Code, Message: d.Message}
		if d.Step > 0 {
			step := d.Step
			e.Step = &step
		}
		res.Errors = append(res.Errors, e)
	}
	return res
}

// Summarize is the skill as `reelier parse --json` shows it.
func Summarize(s *ast.Skill) *Summary {
	ps := &Summary{Name: s.Name(), Description: s.Description(), Frontmatter: s.Frontmatter.Data(), Steps: []Step{}}
	for _, st := range s.Steps {
		step := Step{N: st.Number, Title: st.Title, Asserts: []string{}, Binds: []string{}, Effect: string(st.EffectValue())}
		if st.Intent != nil {
			step.Intent = st.Intent.Text
		}
		if st.Action != nil {
			step.Tool = st.Action.Tool
			step.Args = json.RawMessage(format.Value(st.Action.Args))
		}
		for _, a := range st.Asserts {
			step.Asserts = append(step.Asserts, format.Assert(a.Expr))
		}
		for _, b := range st.Binds {
			step.Binds = append(step.Binds, format.Bind(b.Expr))
		}
		step.Selections = Selections(st)
		ps.Steps = append(ps.Steps, step)
	}
	return ps
}
