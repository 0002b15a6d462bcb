package compile

import (
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/ast"
)

// maxTitle is the longest step title, in characters, taken from notes.
const maxTitle = 80

// skill assembles the compiled skill: frontmatter, a preamble that says
// where the skill came from, the steps, the open questions and a seeded
// changelog.
func (c *compiler) skill() *ast.Skill {
	name := c.name()
	s := &ast.Skill{
		Frontmatter: &ast.Frontmatter{Entries: []*ast.FrontmatterEntry{
			{Key: "name", Value: name},
			{Key: "description", Value: c.description(name)},
		}},
		Preamble: ast.Verbatim{Text: c.preamble(name)},
		Trailing: ast.Verbatim{Text: c.trailing()},
	}
	for _, st := range c.steps {
		s.Steps = append(s.Steps, c.step(st))
	}
	return s
}

// name is the skill's name: the trace's, or the trace file's when the
// trace gives none.
func (c *compiler) name() string {
	if n := oneLine(c.tr.Meta.Name); n != "" {
		return n
	}
	base := oneLine(c.opts.Source)
	base = strings.TrimSuffix(base, ".jsonl")
	if base == "" {
		return "compiled-skill"
	}
	return base
}

func (c *compiler) description(name string) string {
	return fmt.Sprintf("Replays the %s recording: %s, compiled without an LLM", name, plural(len(c.steps), "step"))
}

func (c *compiler) preamble(name string) string {
	started := oneLine(c.tr.Meta.StartedAt)
	return fmt.Sprintf("\n# %s\n\nCompiled by `reelier compile` from %s (recorded %s). Every value a step takes from an earlier result is a bind; everything the compiler would not guess is listed under Open questions — read them before you trust a replay.\n\nInputs: none (the compiler never invents input variables).\n\n## Steps\n\n",
		name, oneLine(c.opts.Source), started)
}

func (c *compiler) trailing() string {
	var b strings.Builder
	b.WriteString("## Open questions\n\n")
	qs := c.q.sorted()
	if len(qs) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, q := range qs {
		b.WriteString("- " + q.Text + "\n")
	}
	fmt.Fprintf(&b, "\n## Changelog\n\n- %s — compiled from %s (%s, %s)\n",
		c.opts.Now().UTC().Format(time.DateOnly), oneLine(c.opts.Source), plural(len(c.steps), "call"), plural(len(c.steps), "step"))
	return b.String()
}

// step builds one skill step.
func (c *compiler) step(st *step) *ast.Step {
	title, intent := c.narration(st)
	n := &stepNodes{
		step:   ast.Step{Number: st.n, Title: title},
		intent: ast.IntentField{Text: intent},
		action: ast.ActionField{Tool: st.call.Tool, Args: st.args},
		effect: ast.EffectField{Value: st.class.Effect},
	}
	out := &n.step
	out.Intent, out.Action, out.Effect = &n.intent, &n.action, &n.effect
	if st.ok {
		out.Asserts = make([]*ast.AssertField, 0, 1+len(st.binds))
		status := &statusAssert{expr: ast.StatusAssert{Op: ast.OpEq, Code: 200}}
		status.field.Expr = &status.expr
		out.Asserts = append(out.Asserts, &status.field)
		for _, bd := range st.binds {
			a := &isSetAssert{expr: ast.JSONIsAssert{Path: bd.src.astPath(), Type: ast.TypeSet}}
			a.field.Expr = &a.expr
			out.Asserts = append(out.Asserts, &a.field)
		}
	}
	if len(st.binds) > 0 {
		out.Binds = make([]*ast.BindField, 0, len(st.binds))
	}
	for _, bd := range st.binds {
		b := &jsonBind{expr: ast.JSONBind{Name: bd.name, Path: bd.src.astPath()}}
		b.field.Expr = &b.expr
		out.Binds = append(out.Binds, &b.field)
	}
	return out
}

// Nodes that live and die together are made in one allocation: a step
// with its fixed fields, a field with its expression. A compiled skill has
// several per step, and fewer, larger objects are cheaper to allocate and
// to collect.
type (
	stepNodes struct {
		step   ast.Step
		intent ast.IntentField
		action ast.ActionField
		effect ast.EffectField
	}
	statusAssert struct {
		field ast.AssertField
		expr  ast.StatusAssert
	}
	isSetAssert struct {
		field ast.AssertField
		expr  ast.JSONIsAssert
	}
	jsonBind struct {
		field ast.BindField
		expr  ast.JSONBind
	}
)

// narration returns a step's title and intent: from its notes when it has
// any, placeholders otherwise.
func (c *compiler) narration(st *step) (title, intent string) {
	if len(st.notes) == 0 {
		return "Call " + st.call.Tool, "Call " + st.call.Tool + " with the recorded arguments (no note narrated this call)"
	}
	text := joinNotes(st.notes)
	return clip(text, maxTitle), text
}

// joinNotes joins consecutive notes with "; ".
func joinNotes(notes []string) string { return strings.Join(notes, "; ") }

// plural renders "1 step" or "3 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
