package grammar

import (
	"bytes"
	"sort"

	"github.com/reelier/reelier/lang/ast"
)

// Reparse returns exactly what Parse(filename, src) returns, given prev and
// prevDiags, the result of Parse (or Reparse) for prevSrc. It is meant for
// an editor, where each new version of a file differs from the last by a
// few keystrokes.
//
// The bytes that changed are found by comparing the two sources. When they
// all lie after the first step's header line, parsing resumes at the header
// of the step whose block (or interlude) holds the first changed byte, and
// stops at the first block boundary past the last changed byte where the
// new parse lines up with the old one again: same offset (shifted by the
// change in length) and same step number. Everything before the restart is
// reused as it is; everything after the boundary is reused with its
// positions shifted. An edit in the frontmatter, the preamble or the first
// step's header line parses the whole file.
//
// prev is never modified; the result may share unchanged nodes with it, so
// callers must treat both trees as read-only.
func Reparse(filename string, prevSrc []byte, prev *ast.Skill, prevDiags ast.Diagnostics, src []byte) (*ast.Skill, ast.Diagnostics) {
	return reparse(filename, prevSrc, prev, prevDiags, src, true)
}

// ReparseDiagnostics returns the diagnostics Reparse would return, without
// building the part of the tree after the re-parsed steps: the cheap way
// to check that a new text (a formatter's output, say) still parses.
func ReparseDiagnostics(filename string, prevSrc []byte, prev *ast.Skill, prevDiags ast.Diagnostics, src []byte) ast.Diagnostics {
	_, diags := reparse(filename, prevSrc, prev, prevDiags, src, false)
	return diags
}

// reparse implements Reparse; without tree the returned tree stops at the
// last step parsed again.
func reparse(filename string, prevSrc []byte, prev *ast.Skill, prevDiags ast.Diagnostics, src []byte, tree bool) (*ast.Skill, ast.Diagnostics) {
	bom := bytes.HasPrefix(src, utf8BOM)
	// Without a closed frontmatter, a `---` typed anywhere below could
	// close the fence and change every line above it: parse it all.
	if prev == nil || prev.Frontmatter == nil || len(prev.Steps) == 0 || prev.BOM != bom || bytes.HasPrefix(prevSrc, utf8BOM) != bom {
		return Parse(filename, src)
	}
	// Near maxProblems, where Parse may stop reading, only Parse knows
	// what it reads; nor is a file too large for positions re-parsed.
	if len(prevDiags) >= maxProblems || len(src) > ast.MaxFileSize {
		return Parse(filename, src)
	}
	old, cur := prevSrc, src
	if bom {
		old, cur = old[len(utf8BOM):], cur[len(utf8BOM):]
	}
	pre, oldEnd, newEnd := changedSpan(old, cur)
	k := restartStep(prev.Steps, old, pre)
	if k < 0 {
		return Parse(filename, src)
	}
	r := &resumer{
		prev: prev, prevDiags: prevDiags, k: k, tree: tree,
		shift: shifter{bytes: newEnd - oldEnd, lines: bytes.Count(cur[pre:newEnd], nl) - bytes.Count(old[pre:oldEnd], nl)},
		p:     &docParser{file: filename, src: string(cur), skill: &ast.Skill{BOM: bom}},
	}
	r.p.lines = splitLines(r.p.src)
	r.p.table = lineTable{r.p.src, r.p.lines}
	if skill, diags, ok := r.run(newEnd); ok && len(diags) < maxProblems {
		return skill, diags
	}
	return Parse(filename, src)
}

var nl = []byte{'\n'}

// changedSpan compares two sources and returns the length of their common
// prefix and where the differing bytes end in each: old[pre:oldEnd] was
// replaced by cur[pre:newEnd]. It compares in chunks first, since a long
// file usually differs in a few bytes.
func changedSpan(old, cur []byte) (pre, oldEnd, newEnd int) {
	const chunk = 256
	n := min(len(old), len(cur))
	for pre+chunk <= n && bytes.Equal(old[pre:pre+chunk], cur[pre:pre+chunk]) {
		pre += chunk
	}
	for pre < n && old[pre] == cur[pre] {
		pre++
	}
	suf := 0
	for suf+chunk <= n-pre && bytes.Equal(old[len(old)-suf-chunk:len(old)-suf], cur[len(cur)-suf-chunk:len(cur)-suf]) {
		suf += chunk
	}
	for suf < n-pre && old[len(old)-1-suf] == cur[len(cur)-1-suf] {
		suf++
	}
	return pre, len(old) - suf, len(cur) - suf
}

// restartStep returns the index of the step whose header parsing resumes
// at: the last step whose header line lies wholly before the first changed
// byte, or -1 when there is none.
func restartStep(steps []*ast.Step, old []byte, pre int) int {
	k := sort.Search(len(steps), func(i int) bool { return int(steps[i].HeaderRange.Start.Offset) > pre }) - 1
	if k >= 0 {
		end := int(steps[k].HeaderRange.End.Offset)
		if i := bytes.IndexByte(old[end:], '\n'); i < 0 || pre < end+i+1 {
			k-- // the change touches this header line: start one step earlier
		}
	}
	return k
}

// resumer re-runs the body loop of Parse from one step header onwards.
type resumer struct {
	prev      *ast.Skill
	prevDiags ast.Diagnostics
	k         int  // index of the first step parsed again
	tree      bool // build the whole tree, not only the diagnostics
	shift     shifter
	p         *docParser
}

// run parses from step k's header until the parse lines up with the old
// one after newEnd, or to the end of the file. ok is false when the old
// header is not where it should be (prev does not belong to prevSrc).
func (r *resumer) run(newEnd int) (*ast.Skill, ast.Diagnostics, bool) {
	p, prev := r.p, r.prev
	skill := p.skill
	skill.CRLF = prev.CRLF
	if len(p.lines) > 0 {
		skill.CRLF = p.line(0).next > p.line(0).end+1
	}
	skill.Frontmatter, skill.Preamble, skill.Servers = prev.Frontmatter, prev.Preamble, prev.Servers
	skill.Steps = append(make([]*ast.Step, 0, len(prev.Steps)+1), prev.Steps[:r.k]...)
	restart := prev.Steps[r.k].HeaderRange
	h := int(restart.Start.Line) - 1
	if h >= len(p.lines) || p.line(h).start != int(restart.Start.Offset) {
		return nil, nil, false
	}
	expected := 1
	if r.k > 0 {
		expected = prev.Steps[r.k-1].Number + 1
	}
	for {
		step, end := p.step(h, expected)
		skill.Steps = append(skill.Steps, step)
		expected = step.Number + 1
		// Sync only at the start of a line: a boundary at the end of a file
		// without a final newline shares its line with the edit.
		if at := p.offsetOf(end); end < len(p.lines) && at >= newEnd {
			if j := r.boundary(at - r.shift.bytes); j >= 0 && prev.Steps[j].Number == step.Number {
				r.splice(step, j)
				return skill, r.diagnostics(int(restart.Start.Offset), at-r.shift.bytes), true
			}
		}
		header, heads := p.nextStepHeader(end)
		v := p.verbatim(end, header, heads)
		if header >= len(p.lines) {
			skill.Trailing = v
			return skill, r.diagnostics(int(restart.Start.Offset), -1), true
		}
		step.Interlude = v
		h = header
	}
}

// boundary returns the index of the old step whose block ends at offset
// off (where its interlude, or the trailing text, begins), or -1.
func (r *resumer) boundary(off int) int {
	steps := r.prev.Steps
	j := sort.Search(len(steps), func(i int) bool { return blockEnd(r.prev, i) >= off })
	if j < len(steps) && blockEnd(r.prev, j) == off {
		return j
	}
	return -1
}

// blockEnd returns the offset just past step i's block.
func blockEnd(s *ast.Skill, i int) int {
	if i == len(s.Steps)-1 {
		return int(s.Trailing.Range.Start.Offset)
	}
	return int(s.Steps[i].Interlude.Range.Start.Offset)
}

// splice finishes the new tree with shifted copies of what follows old
// step j: its interlude, the later steps and the trailing text.
func (r *resumer) splice(step *ast.Step, j int) {
	if !r.tree {
		return
	}
	skill := r.p.skill
	step.Interlude = r.shift.verbatim(r.prev.Steps[j].Interlude)
	for _, s := range r.prev.Steps[j+1:] {
		skill.Steps = append(skill.Steps, r.shift.step(s))
	}
	skill.Trailing = r.shift.verbatim(r.prev.Trailing)
}

// diagnostics joins the old diagnostics before the restart offset, the new
// ones, and (when tail >= 0) the old ones from offset tail on, shifted. The
// three groups cover disjoint, increasing offsets, so the result is sorted
// as Parse sorts.
func (r *resumer) diagnostics(restart, tail int) ast.Diagnostics {
	fresh := r.p.diags
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].Range.Start.Offset < fresh[j].Range.Start.Offset })
	var out ast.Diagnostics
	for _, d := range r.prevDiags {
		if int(d.Range.Start.Offset) < restart {
			d.File = r.p.file
			out = append(out, d)
		}
	}
	out = append(out, fresh...)
	if tail >= 0 {
		for _, d := range r.prevDiags {
			if int(d.Range.Start.Offset) >= tail {
				d.File = r.p.file
				out = append(out, r.shift.diagnostic(d))
			}
		}
	}
	return out
}

// shifter copies nodes that sit after an edit, moving them by the change
// in length and in line count. Such nodes start on whole lines after the
// edit, so their columns stay as they were.
type shifter struct{ bytes, lines int }

func (s shifter) pos(p ast.Pos) ast.Pos {
	return ast.Pos{Offset: p.Offset + int32(s.bytes), Line: p.Line + int32(s.lines), Column: p.Column}
}

// rng shifts a range; the zero range (a part that is absent, such as the
// last step's interlude) stays zero.
func (s shifter) rng(r ast.Range) ast.Range {
	if r == (ast.Range{}) {
		return r
	}
	return ast.Range{Start: s.pos(r.Start), End: s.pos(r.End)}
}

func (s shifter) verbatim(v ast.Verbatim) ast.Verbatim {
	out := ast.Verbatim{Text: v.Text, Range: s.rng(v.Range)}
	if v.Headings != nil {
		out.Headings = make([]ast.Heading, len(v.Headings))
		for i, h := range v.Headings {
			h.Range = s.rng(h.Range)
			out.Headings[i] = h
		}
	}
	return out
}

func (s shifter) prose(ps []ast.Prose) []ast.Prose {
	if ps == nil {
		return nil
	}
	out := make([]ast.Prose, len(ps))
	for i, p := range ps {
		out[i] = ast.Prose{Text: p.Text, Range: s.rng(p.Range)}
	}
	return out
}

func (s shifter) bullet(b ast.Bullet) ast.Bullet {
	return ast.Bullet{Range: s.rng(b.Range), KeyRange: s.rng(b.KeyRange), ValueRange: s.rng(b.ValueRange), Leading: s.prose(b.Leading)}
}

func (s shifter) step(st *ast.Step) *ast.Step {
	c := *st
	c.Range, c.HeaderRange, c.NumberRange, c.TitleRange = s.rng(st.Range), s.rng(st.HeaderRange), s.rng(st.NumberRange), s.rng(st.TitleRange)
	c.LeadingProse, c.TrailingProse = s.prose(st.LeadingProse), s.prose(st.TrailingProse)
	c.Interlude = s.verbatim(st.Interlude)
	if st.Intent != nil {
		c.Intent = &ast.IntentField{Bullet: s.bullet(st.Intent.Bullet), Text: st.Intent.Text}
	}
	if a := st.Action; a != nil {
		c.Action = &ast.ActionField{Bullet: s.bullet(a.Bullet), Tool: a.Tool, ToolRange: s.rng(a.ToolRange), Args: s.value(a.Args)}
	}
	if st.Asserts != nil {
		c.Asserts = make([]*ast.AssertField, len(st.Asserts))
		for i, a := range st.Asserts {
			c.Asserts[i] = &ast.AssertField{Bullet: s.bullet(a.Bullet), Expr: s.assert(a.Expr)}
		}
	}
	if st.Binds != nil {
		c.Binds = make([]*ast.BindField, len(st.Binds))
		for i, b := range st.Binds {
			c.Binds[i] = &ast.BindField{Bullet: s.bullet(b.Bullet), Expr: s.bind(b.Expr)}
		}
	}
	if e := st.Effect; e != nil {
		c.Effect = &ast.EffectField{Bullet: s.bullet(e.Bullet), Value: e.Value}
	}
	return &c
}

func (s shifter) value(v ast.Value) ast.Value {
	switch v := v.(type) {
	case *ast.Object:
		c := &ast.Object{Range: s.rng(v.Range)}
		if v.Members != nil {
			c.Members = make([]*ast.Member, len(v.Members))
			for i, m := range v.Members {
				c.Members[i] = &ast.Member{Key: m.Key, KeyRange: s.rng(m.KeyRange), Value: s.value(m.Value)}
			}
		}
		return c
	case *ast.Array:
		c := &ast.Array{Range: s.rng(v.Range)}
		if v.Elements != nil {
			c.Elements = make([]ast.Value, len(v.Elements))
			for i, e := range v.Elements {
				c.Elements[i] = s.value(e)
			}
		}
		return c
	case *ast.String:
		c := &ast.String{Range: s.rng(v.Range), Value: v.Value}
		if v.Holes != nil {
			c.Holes = make([]*ast.Hole, len(v.Holes))
			for i, h := range v.Holes {
				hc := *h
				hc.Range, hc.NameRange = s.rng(h.Range), s.rng(h.NameRange)
				c.Holes[i] = &hc
			}
		}
		return c
	case *ast.Number:
		return &ast.Number{Range: s.rng(v.Range), Raw: v.Raw}
	case *ast.Bool:
		return &ast.Bool{Range: s.rng(v.Range), Value: v.Value}
	case *ast.Null:
		return &ast.Null{Range: s.rng(v.Range)}
	}
	return v
}

func (s shifter) path(p ast.Path) ast.Path {
	out := ast.Path{Range: s.rng(p.Range)}
	if p.Elements != nil {
		out.Elements = make([]ast.PathElement, len(p.Elements))
		for i, e := range p.Elements {
			e.Range = s.rng(e.Range)
			out.Elements[i] = e
		}
	}
	return out
}

func (s shifter) assert(a ast.Assert) ast.Assert {
	switch a := a.(type) {
	case *ast.StatusAssert:
		c := *a
		c.Range, c.OpRange, c.CodeRange = s.rng(a.Range), s.rng(a.OpRange), s.rng(a.CodeRange)
		return &c
	case *ast.BodyContainsAssert:
		c := *a
		c.Range, c.TextRange = s.rng(a.Range), s.rng(a.TextRange)
		return &c
	case *ast.JSONIsAssert:
		c := *a
		c.Range, c.Path, c.TypeRange = s.rng(a.Range), s.path(a.Path), s.rng(a.TypeRange)
		return &c
	case *ast.JSONMatchesAssert:
		c := *a
		c.Range, c.Path, c.PatternRange = s.rng(a.Range), s.path(a.Path), s.rng(a.PatternRange)
		return &c
	case *ast.JSONLengthAssert:
		c := *a
		c.Range, c.Path, c.OpRange, c.LenRange = s.rng(a.Range), s.path(a.Path), s.rng(a.OpRange), s.rng(a.LenRange)
		return &c
	case *ast.JSONCompareAssert:
		c := *a
		c.Range, c.Path, c.OpRange, c.Value = s.rng(a.Range), s.path(a.Path), s.rng(a.OpRange), s.value(a.Value)
		return &c
	case *ast.SelectionAssert:
		c := *a
		c.Range, c.Sel, c.OpRange, c.TypeRange, c.PatternRange = s.rng(a.Range), s.selection(a.Sel), s.rng(a.OpRange), s.rng(a.TypeRange), s.rng(a.PatternRange)
		if a.Value != nil {
			c.Value = s.value(a.Value)
		}
		return &c
	}
	return a
}

// selection copies a selection with its ranges shifted.
func (s shifter) selection(x *ast.Selection) *ast.Selection {
	c := *x
	c.Range, c.PickRange, c.OrderRange, c.SepRange = s.rng(x.Range), s.rng(x.PickRange), s.rng(x.OrderRange), s.rng(x.SepRange)
	c.Source.Range, c.Source.Path, c.Source.PatternRange = s.rng(x.Source.Range), s.path(x.Source.Path), s.rng(x.Source.PatternRange)
	if x.Where != nil {
		c.Where = make([]*ast.Condition, len(x.Where))
		for i, w := range x.Where {
			cw := *w
			cw.Range, cw.Key, cw.OpRange, cw.PatternRange = s.rng(w.Range), s.path(w.Key), s.rng(w.OpRange), s.rng(w.PatternRange)
			if w.Value != nil {
				cw.Value = s.value(w.Value)
			}
			c.Where[i] = &cw
		}
	}
	c.By, c.Field = s.path(x.By), s.path(x.Field)
	return &c
}

func (s shifter) bind(b ast.Bind) ast.Bind {
	switch b := b.(type) {
	case *ast.JSONBind:
		c := *b
		c.Range, c.NameRange, c.Path = s.rng(b.Range), s.rng(b.NameRange), s.path(b.Path)
		return &c
	case *ast.BodyMatchBind:
		c := *b
		c.Range, c.NameRange, c.PatternRange = s.rng(b.Range), s.rng(b.NameRange), s.rng(b.PatternRange)
		return &c
	case *ast.SelectionBind:
		c := *b
		c.Range, c.NameRange, c.Sel = s.rng(b.Range), s.rng(b.NameRange), s.selection(b.Sel)
		return &c
	}
	return b
}

func (s shifter) diagnostic(d ast.Diagnostic) ast.Diagnostic {
	d.Range = s.rng(d.Range)
	if d.Fixes != nil {
		fixes := make([]ast.SuggestedFix, len(d.Fixes))
		for i, f := range d.Fixes {
			fixes[i] = ast.SuggestedFix{Title: f.Title}
			if f.Edits != nil {
				fixes[i].Edits = make([]ast.TextEdit, len(f.Edits))
				for j, e := range f.Edits {
					fixes[i].Edits[j] = ast.TextEdit{Range: s.rng(e.Range), NewText: e.NewText}
				}
			}
		}
		d.Fixes = fixes
	}
	return d
}
