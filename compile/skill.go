package compile

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/trace"
)

// maxTitle is the longest step title, in characters, taken from notes.
const maxTitle = 80

// skeleton is the compiled skill without its steps: frontmatter, a
// preamble that says where the skill came from, and the open questions
// and a seeded changelog after the steps.
func (c *compiler) skeleton() *ast.Skill {
	name := c.name()
	return &ast.Skill{
		Frontmatter: &ast.Frontmatter{Entries: []*ast.FrontmatterEntry{
			{Key: "name", Value: name},
			{Key: "description", Value: c.description(name)},
		}},
		Preamble: ast.Verbatim{Text: c.preamble(name)},
		Trailing: ast.Verbatim{Text: c.trailing()},
	}
}

// stepNodes yields the skill's steps in order, each built when it is asked
// for. The compiler does not keep the calls' arguments, so this is a third
// walk over the records; a walk that fails, or finds the trace changed,
// stops the steps and leaves its error in *failed.
func (c *compiler) stepNodes(failed *error) iter.Seq[*ast.Step] {
	return func(yield func(*ast.Step) bool) {
		k := 0
		err := c.walk(func(rec trace.Record, line int) error {
			call, ok := rec.(*trace.Call)
			if !ok {
				return nil
			}
			if k == len(c.steps) {
				return errWalked
			}
			st := c.steps[k]
			k++
			if !st.same(call, line, c.seed) {
				return errChanged
			}
			if !yield(c.step(st, call.Args)) {
				return errWalked
			}
			return nil
		})
		switch {
		case errors.Is(err, errWalked):
		case err != nil:
			*failed = err
		case k != len(c.steps):
			*failed = errChanged
		}
	}
}

// name is the skill's name: the trace's, or the trace file's when the
// trace gives none.
func (c *compiler) name() string {
	if n := oneLine(c.meta.Name); n != "" {
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
	started := oneLine(c.meta.StartedAt)
	return fmt.Sprintf("\n# %s\n\nCompiled by `reelier compile` from %s (recorded %s). Every value a step takes from an earlier result is a bind; everything the compiler would not guess is listed under Open questions — read them before you trust a replay.\n\nInputs: none (the compiler never invents input variables).\n\n## Steps\n\n",
		name, oneLine(c.opts.Source), started)
}

func (c *compiler) trailing() string {
	qs := c.q.sorted()
	size := 256
	for _, q := range qs {
		size += len(q.Text) + 3
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString("## Open questions\n\n")
	if len(qs) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, q := range qs {
		b.WriteString("- ")
		b.WriteString(q.Text)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n## Changelog\n\n- %s — compiled from %s (%s, %s)\n",
		c.opts.Now().UTC().Format(time.DateOnly), oneLine(c.opts.Source), plural(len(c.steps), "call"), plural(len(c.steps), "step"))
	return b.String()
}

// step builds one skill step.
func (c *compiler) step(st *step, args json.RawMessage) *ast.Step {
	title, intent := c.narration(st)
	n := &stepNodes{
		step:   ast.Step{Number: st.n, Title: title},
		intent: ast.IntentField{Text: intent},
		action: ast.ActionField{Tool: st.tool, Args: c.args(st, args)},
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
			a := &isSetAssert{expr: ast.JSONIsAssert{Path: bd.astPath(), Type: ast.TypeSet}}
			a.field.Expr = &a.expr
			out.Asserts = append(out.Asserts, &a.field)
		}
	}
	if len(st.binds) > 0 {
		out.Binds = make([]*ast.BindField, 0, len(st.binds))
	}
	for _, bd := range st.binds {
		b := &jsonBind{expr: ast.JSONBind{Name: bd.name, Path: bd.astPath()}}
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

// args parses a step's recorded arguments again, which the first walk
// found valid, and puts in the holes dataflow recovery chose.
func (c *compiler) args(st *step, raw json.RawMessage) ast.Value {
	args, _ := grammar.ParseArgs(string(raw), ast.Pos{})
	if len(st.holes) == 0 {
		return args
	}
	ord, next := -1, 0
	return mapLeaves(args, func(v ast.Value) ast.Value {
		ord++
		if next < len(st.holes) && st.holes[next].ord == ord {
			next++
			return holeString(st.holes[next-1].name)
		}
		return v
	})
}

// narration returns a step's title and intent: from its notes when it has
// any, placeholders otherwise.
func (c *compiler) narration(st *step) (title, intent string) {
	if len(st.notes) == 0 {
		return "Call " + st.tool, "Call " + st.tool + " with the recorded arguments (no note narrated this call)"
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
