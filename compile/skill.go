package compile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
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
// for. The compiler does not keep the calls' arguments, so each call is
// read again where the first walk found it; a read that fails, or finds
// another call there, stops the steps and leaves its error in *failed.
//
// With reuse set, every step is built in the same storage, valid until the
// next step is asked for; otherwise each step has its own.
func (c *compiler) stepNodes(failed *error, reuse bool) iter.Seq[*ast.Step] {
	return func(yield func(*ast.Step) bool) {
		b := new(stepBuilder)
		read, done, err := c.src.open()
		if err != nil {
			*failed = err
			return
		}
		defer done()
		for _, st := range c.steps {
			rec, err := read(st.at)
			var bad *trace.LineError
			switch {
			case errors.As(err, &bad), errors.Is(err, io.ErrUnexpectedEOF):
				// Not a record, or the file ends before it: it changed.
				*failed = ErrTraceChanged
				return
			case err != nil:
				*failed = err
				return
			}
			call, ok := rec.(*trace.Call)
			if !ok || !st.same(call, st.at.Line, c.seed) {
				*failed = ErrTraceChanged
				return
			}
			if !reuse {
				b = new(stepBuilder)
			}
			if !yield(c.step(st, call.Args, b)) {
				return
			}
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

// step builds one skill step in the storage of b, which it resets: the
// nodes of the step b built before are reused.
func (c *compiler) step(st *step, args json.RawMessage, b *stepBuilder) *ast.Step {
	title, intent := c.narration(st)
	b.nodes = stepNodes{
		step:   ast.Step{Number: st.n, Title: title},
		intent: ast.IntentField{Text: intent},
		action: ast.ActionField{Tool: st.tool, Args: c.args(st, args, b)},
		effect: ast.EffectField{Value: st.class.Effect},
	}
	out := &b.nodes.step
	out.Intent, out.Action, out.Effect = &b.nodes.intent, &b.nodes.action, &b.nodes.effect
	// The storage is sized first: the fields point into it.
	n := len(st.binds)
	b.isSet, b.binds = slices.Grow(b.isSet[:0], n)[:n], slices.Grow(b.binds[:0], n)[:n]
	b.asserts, b.bindFields = b.asserts[:0], b.bindFields[:0]
	b.elements = b.elements[:0]
	if st.ok {
		b.status = statusAssert{expr: ast.StatusAssert{Op: ast.OpEq, Code: 200}}
		b.status.field.Expr = &b.status.expr
		b.asserts = append(b.asserts, &b.status.field)
	}
	for k, bd := range st.binds {
		// The is-set assert and the bind read the same path; they share
		// its elements.
		path := b.path(bd.path)
		if st.ok {
			b.isSet[k] = isSetAssert{expr: ast.JSONIsAssert{Path: path, Type: ast.TypeSet}}
			b.isSet[k].field.Expr = &b.isSet[k].expr
			b.asserts = append(b.asserts, &b.isSet[k].field)
		}
		b.binds[k] = jsonBind{expr: ast.JSONBind{Name: bd.name, Path: path}}
		b.binds[k].field.Expr = &b.binds[k].expr
		b.bindFields = append(b.bindFields, &b.binds[k].field)
	}
	if len(b.asserts) > 0 {
		out.Asserts = b.asserts
	}
	if len(b.bindFields) > 0 {
		out.Binds = b.bindFields
	}
	return out
}

// stepBuilder is the storage of one step's nodes. The tree Skill returns
// has one per step; printing reuses one for every step, since each step is
// printed before the next is built.
type stepBuilder struct {
	nodes      stepNodes
	status     statusAssert
	isSet      []isSetAssert
	binds      []jsonBind
	asserts    []*ast.AssertField
	bindFields []*ast.BindField
	elements   []ast.PathElement
	holes      []holeLeaf
}

// path returns a bind's dotted path as a syntax node, as the parser would
// read its text, its elements kept in b.
func (b *stepBuilder) path(dotted string) ast.Path {
	start := len(b.elements)
	for seg := range strings.SplitSeq(dotted, ".") {
		el := ast.PathElement{Name: seg, Index: -1}
		if isDigits(seg) {
			if n, err := strconv.Atoi(seg); err == nil {
				el.Index = n
			}
		}
		b.elements = append(b.elements, el)
	}
	return ast.Path{Elements: b.elements[start:len(b.elements):len(b.elements)]}
}

// Nodes that live and die together are made in one allocation: a step
// with its fixed fields, a field with its expression.
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
func (c *compiler) args(st *step, raw json.RawMessage, b *stepBuilder) ast.Value {
	args, _ := grammar.ParseArgs(string(raw), ast.Pos{})
	if len(st.holes) == 0 {
		return args
	}
	b.holes = slices.Grow(b.holes[:0], len(st.holes))[:len(st.holes)]
	ord, next := -1, 0
	return mapLeaves(args, func(v ast.Value) ast.Value {
		ord++
		if next < len(st.holes) && st.holes[next].ord == ord {
			next++
			return b.holes[next-1].set(st.holes[next-1].name)
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
