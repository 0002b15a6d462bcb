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

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

// maxTitle is the longest step title, in characters, taken from notes.
const maxTitle = 80

// skeleton is the compiled skill without its steps: frontmatter, a
// preamble that says where the skill came from, and the open questions
// and a seeded changelog after the steps.
func (c *compiler) skeleton() *ast.Skill {
	s := c.head()
	s.Trailing = ast.Verbatim{Text: c.trailing()}
	return s
}

// head is the skeleton without its trailing text.
func (c *compiler) head() *ast.Skill {
	name := c.name()
	fm := &ast.Frontmatter{Entries: []*ast.FrontmatterEntry{
		{Key: "name", Value: name},
		{Key: "description", Value: c.description(name)},
	}}
	if md := c.metadata(); md != nil {
		fm.Entries = append(fm.Entries, md)
	}
	return &ast.Skill{
		Frontmatter: fm,
		Preamble:    ast.Verbatim{Text: c.preamble(name)},
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
		if reuse {
			b.arena = new(nodeArena)
		}
		read, done, err := c.src.open()
		if err != nil {
			*failed = err
			return
		}
		defer done()
		for _, st := range c.steps {
			rec, err := read(st.at)
			if err != nil {
				var bad *trace.LineError
				if errors.As(err, &bad) || errors.Is(err, io.ErrUnexpectedEOF) {
					// Not a record, or the file ends before it: it changed.
					err = ErrTraceChanged
				}
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
	// The name is also the skill's Agent Skills name, which only lower-case
	// letters, digits and single hyphens make (lang/agentskill).
	if n := agentskill.Name(oneLine(c.meta.Name)); n != "" {
		return n
	}
	if n := agentskill.Name(strings.TrimSuffix(oneLine(c.opts.Source), ".jsonl")); n != "" {
		return n
	}
	return "compiled-skill"
}

func (c *compiler) description(name string) string {
	return agentskill.Description(fmt.Sprintf("Replays the %s recording (%s), compiled without an LLM", name, words.Count(len(c.steps), "step")))
}

func (c *compiler) preamble(name string) string {
	started := oneLine(c.meta.StartedAt)
	return fmt.Sprintf("\n# %s\n\nCompiled by `reelier compile` from %s (recorded %s). Every value a step takes from an earlier result is a bind; everything the compiler would not guess is listed under Open questions — read them before you trust a replay.\n\n%s\n\n%s\n\n%s## Steps\n\n",
		name, oneLine(c.opts.Source), started, c.forAgents(), c.inputsLine(), c.servers())
}

// forAgents is the paragraph an agent reads when it loads the skill as an
// Agent Skill: the steps below are a program to replay, how to replay it,
// and what a failure means.
func (c *compiler) forAgents() string {
	var writes, destructive []int
	for _, st := range c.steps {
		switch st.class.Effect {
		case ast.EffectIdempotentWrite:
			writes = append(writes, st.n)
		case ast.EffectDestructive:
			destructive = append(destructive, st.n)
		}
	}
	var b strings.Builder
	b.WriteString("For an agent: do not perform these steps by hand. Replay them with `reelier run` on this file, which makes the same tool calls with no model involved and checks every result")
	if len(c.meta.Servers) > 0 {
		b.WriteString(" (the first time, `--servers-from-skill` starts the servers listed under Servers once the user trusts them; `--wrap` starts others)")
	}
	switch {
	case len(destructive) > 0:
		fmt.Fprintf(&b, "; it runs %s only with `--yes`", stepWord2(destructive))
		if len(writes) > 0 {
			fmt.Fprintf(&b, " and %s with `--allow-writes`, so ask before passing either", stepWord2(writes))
		} else {
			b.WriteString(", so ask before passing it")
		}
	case len(writes) > 0:
		fmt.Fprintf(&b, "; it runs %s only with `--allow-writes`, so ask before passing it", stepWord2(writes))
	}
	b.WriteString(". A failed replay means the world drifted from the recording: report the step and its failure rather than working around it.")
	return b.String()
}

// stepWord2 renders "step 3" or "steps 2, 4 and 5".
func stepWord2(ns []int) string {
	if len(ns) == 1 {
		return fmt.Sprintf("step %d", ns[0])
	}
	return "steps " + stepList(ns)
}

// inputsLine documents the skill's inputs: the values the recording
// redacted, which a run supplies with --var.
func (c *compiler) inputsLine() string {
	if len(c.inputOrder) == 0 {
		return "Inputs: none (the compiler never invents input variables)."
	}
	var b strings.Builder
	b.WriteString("Inputs: ")
	for i, in := range c.inputOrder {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "`{{%s}}`", in.name)
	}
	b.WriteString(" — values the recording redacted; supply each as REELIER_VAR_<name> in the environment, in a --var-file, or with --var name=value.")
	return b.String()
}

func (c *compiler) trailing() string {
	var b strings.Builder
	c.writeTrailing(&b, c.opts.Now())
	return b.String()
}

// writeTrailing writes the open questions and the changelog, dated now,
// to w: the skill's trailing text.
func (c *compiler) writeTrailing(w interface {
	io.Writer
	io.StringWriter
}, now time.Time) {
	qs := c.q.sorted()
	if b, ok := w.(*strings.Builder); ok {
		size := 256
		for _, q := range qs {
			size += len(q.Text) + 3
		}
		b.Grow(size)
	}
	w.WriteString("## Open questions\n\n")
	if len(qs) == 0 {
		w.WriteString("- (none)\n")
	}
	for _, q := range qs {
		w.WriteString("- ")
		w.WriteString(q.Text)
		w.WriteString("\n")
	}
	fmt.Fprintf(w, "\n## Changelog\n\n- %s — compiled from %s (%s, %s)\n",
		now.UTC().Format(time.DateOnly), oneLine(c.opts.Source), words.Count(len(c.steps), "call"), words.Count(len(c.steps), "step"))
}

// step builds one skill step. b is storage reused from step to step for
// the argument holes; with b.arena set, every node of the step is built
// in it.
func (c *compiler) step(st *step, args json.RawMessage, b *stepBuilder) *ast.Step {
	a := b.arena
	a.reset()
	title, intent := c.narration(st)
	var out *ast.Step
	if a == nil {
		out = &ast.Step{Number: st.n, Title: title,
			Intent: &ast.IntentField{Text: intent},
			Action: &ast.ActionField{Tool: st.tool, Args: c.args(st, args, b)},
			Effect: &ast.EffectField{Value: st.class.Effect},
		}
	} else {
		out = take(&a.steps)
		out.Number, out.Title = st.n, title
		out.Intent, out.Action, out.Effect = take(&a.intents), take(&a.actions), take(&a.effects)
		out.Intent.Text = intent
		out.Action.Tool, out.Action.Args = st.tool, c.args(st, args, b)
		out.Effect.Value = st.class.Effect
	}
	// The fields of a step are allocated together, one slice each, not
	// one by one (#20).
	asserts := c.asserts(st, a)
	st.nAsserts, st.counted = len(asserts), true
	if len(asserts) > 0 {
		var fields []ast.AssertField
		if a == nil {
			fields = make([]ast.AssertField, len(asserts))
			out.Asserts = make([]*ast.AssertField, len(asserts))
		} else {
			fields, out.Asserts = takeN(&a.afields, len(asserts)), takeN(&a.aptrs, len(asserts))
		}
		for i, x := range asserts {
			fields[i].Expr = x
			out.Asserts[i] = &fields[i]
		}
	}
	a.keep(asserts)
	if len(st.binds) > 0 {
		var fields []ast.BindField
		if a == nil {
			fields = make([]ast.BindField, len(st.binds))
			out.Binds = make([]*ast.BindField, len(st.binds))
		} else {
			fields, out.Binds = takeN(&a.bfields, len(st.binds)), takeN(&a.bptrs, len(st.binds))
		}
		for i, bd := range st.binds {
			switch {
			case bd.sel != nil:
				fields[i].Expr = &ast.SelectionBind{Name: bd.name, Sel: bd.sel}
			case bd.path == "" && a == nil:
				fields[i].Expr = &ast.BodyMatchBind{Name: bd.name, Pattern: bd.pattern}
			case bd.path == "":
				m := take(&a.mbinds)
				m.Name, m.Pattern = bd.name, bd.pattern
				fields[i].Expr = m
			case a == nil:
				fields[i].Expr = &ast.JSONBind{Name: bd.name, Path: pathNode(bd.path)}
			default:
				j := take(&a.jbinds)
				j.Name, j.Path = bd.name, a.path(bd.path)
				fields[i].Expr = j
			}
			out.Binds[i] = &fields[i]
		}
	}
	return out
}

// asserts lists a step's asserts: its status, a check on every value a
// later step takes from it, then the checks derived from its result. The
// nodes come from a (nil: each its own).
func (c *compiler) asserts(st *step, a *nodeArena) []ast.Assert {
	if !st.ok {
		return nil
	}
	status := a.statusAssert()
	status.Op, status.Code = ast.OpEq, 200
	out := append(a.assertList(), status)
	for _, p := range st.pre {
		out = append(out, p)
	}
	covered := a.coveredSet()
	for _, bd := range st.binds {
		if bd.path == "" {
			continue
		}
		covered[bd.path] = true
		// A pick from a list is checked by value, unless the value is
		// one that changes from run to run (a generated id): then the
		// type is all a replay can hold it to.
		if bd.array && !bd.volatile() {
			if v := a.scalar(bd.raw); v != nil {
				out = append(out, a.compare(bd.path, v))
				continue
			}
		}
		// A bound name or path is held to its shape, so a list where one
		// name was (a search that now finds two files) fails here, before
		// a later step acts on it.
		if bd.kind == 's' {
			if shape := valueShape(unquoteRaw(bd.raw)); shape != "" {
				m := a.matchesAssert()
				m.Path, m.Pattern = a.path(bd.path), shape
				out = append(out, m)
				continue
			}
		}
		out = append(out, a.is(bd.path, kindType(bd.kind)))
	}
	for _, ck := range st.checks {
		if covered[ck.path] {
			continue
		}
		if ck.typ != "" {
			out = append(out, a.is(ck.path, ck.typ))
			continue
		}
		if v := a.scalar(ck.value); v != nil {
			out = append(out, a.compare(ck.path, v))
		}
	}
	var taken []string
	for _, bd := range st.binds {
		if bd.path == "" {
			taken = append(taken, bd.val)
		}
	}
	out = checkAsserts(st.pickChks, out, a)
	lines := st.lines
	for _, bd := range st.binds {
		if bd.sel != nil && bd.sel.Source.Kind == ast.SourceLines {
			// A listing the step picks from by a rule: its other rows
			// played no part, and a line check on one would pin it.
			lines = nil
			break
		}
	}
	if !st.proseFed && len(lines) > maxTextLines {
		lines = lines[:maxTextLines]
	}
	for _, line := range lines {
		// A line holding a token a later step takes is checked only up
		// to it: the bind follows the token if it changes.
		if line = cutBefore(line, taken); line != "" {
			x := a.containsAssert()
			x.Text = line
			out = append(out, x)
		}
	}
	// What an earlier step wrote and this read shows is checked by value
	// whatever else checks the result; a line holding it, or a field held
	// to it, covers it.
	for _, w := range st.readBack {
		if !slices.ContainsFunc(out, func(a ast.Assert) bool {
			switch a := a.(type) {
			case *ast.BodyContainsAssert:
				return !a.Negated && strings.Contains(a.Text, w)
			case *ast.JSONCompareAssert:
				s, ok := a.Value.(*ast.String)
				return ok && a.Op == ast.OpEq && s.Value == w
			}
			return false
		}) {
			x := a.containsAssert()
			x.Text = w
			out = append(out, x)
		}
	}
	return out
}

// checkAsserts appends to have the asserts of checks, leaving out those
// on a path an assert in have already checks.
func checkAsserts(cks []check, have []ast.Assert, a *nodeArena) []ast.Assert {
	if len(cks) == 0 {
		return have
	}
	done := a.doneSet()
	for _, x := range have {
		switch x := x.(type) {
		case *ast.JSONCompareAssert:
			done[x.Path.String()] = true
		case *ast.JSONIsAssert:
			done[x.Path.String()] = true
		case *ast.JSONMatchesAssert:
			done[x.Path.String()] = true
		}
	}
	for _, ck := range cks {
		if done[ck.path] {
			continue
		}
		done[ck.path] = true
		if ck.typ != "" {
			have = append(have, a.is(ck.path, ck.typ))
		} else if v := a.scalar(ck.value); v != nil {
			have = append(have, a.compare(ck.path, v))
		}
	}
	return have
}

// unquoteSlow decodes a recorded JSON string's text with escapes.
func unquoteSlow(raw string) string {
	var v string
	if json.Unmarshal([]byte(raw), &v) != nil {
		return ""
	}
	return v
}

// kindType is the assert type of a recorded value's JSON kind.
func kindType(kind byte) ast.TypeName {
	if kind == 'n' {
		return ast.TypeNumber
	}
	return ast.TypeString
}

// stepBuilder is storage reused from one step to the next.
type stepBuilder struct {
	holes []holeLeaf
	// arena, when set, holds every node of the step (Write's reuse).
	arena *nodeArena
}

// pathNode returns a dotted path as a syntax node, as the parser would
// read its text.
func pathNode(dotted string) ast.Path {
	els := make([]ast.PathElement, strings.Count(dotted, ".")+1)
	fillPath(els, dotted)
	return ast.Path{Elements: els}
}

// fillPath sets els, one per segment, to the segments of a dotted path.
func fillPath(els []ast.PathElement, dotted string) {
	k := 0
	for seg := range strings.SplitSeq(dotted, ".") {
		el := ast.PathElement{Name: seg, Index: -1}
		if isDigits(seg) {
			if n, err := strconv.Atoi(seg); err == nil {
				el.Index = n
			}
		}
		els[k] = el
		k++
	}
}

// args parses a step's recorded arguments again, which the first walk
// found valid, and puts in the holes dataflow recovery chose.
func (c *compiler) args(st *step, raw json.RawMessage, b *stepBuilder) ast.Value {
	if b.arena != nil {
		if v, ok := b.arena.args(string(raw), st.holes, b); ok {
			return v
		}
	}
	args, _ := grammar.ParseArgs(string(raw), ast.Pos{})
	if len(st.holes) == 0 {
		return args
	}
	b.holes = slices.Grow(b.holes[:0], len(st.holes))[:len(st.holes)]
	ord, next := -1, 0
	return mapLeaves(args, func(v ast.Value) ast.Value {
		ord++
		if next < len(st.holes) && st.holes[next].ord == ord {
			h := st.holes[next]
			next++
			if h.composed != nil {
				cp := *h.composed
				return &cp
			}
			return b.holes[next-1].set(h.whole)
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
