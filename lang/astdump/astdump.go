// Package astdump renders a parsed skill as an indented outline with the
// position of every node, for golden tests and `reelier parse --tree`-style
// debugging. The format is for people reviewing diffs, not for machines.
package astdump

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// Skill returns the outline of s.
func Skill(s *ast.Skill) string {
	d := &dumper{}
	d.f(0, "skill bom=%v crlf=%v", s.BOM, s.CRLF)
	if fm := s.Frontmatter; fm != nil {
		d.f(1, "frontmatter %s", rng(fm.Range))
		for _, e := range fm.Entries {
			d.entry(2, e)
		}
	}
	d.verbatim(1, "preamble", s.Preamble)
	for _, st := range s.Steps {
		d.step(st)
	}
	d.verbatim(1, "trailing", s.Trailing)
	return d.b.String()
}

type dumper struct{ b strings.Builder }

func (d *dumper) entry(depth int, e *ast.FrontmatterEntry) {
	var attrs []string
	if e.Flat {
		attrs = append(attrs, "flat")
	}
	if e.Kind == ast.ScalarValue && e.Type != "str" {
		attrs = append(attrs, "type="+e.Type)
	}
	if e.KeyType != "" && e.KeyType != "str" {
		attrs = append(attrs, "keytype="+e.KeyType)
	}
	extra := ""
	if len(attrs) > 0 {
		extra = " " + strings.Join(attrs, " ")
	}
	switch e.Kind {
	case ast.ListValue:
		d.f(depth, "%q list key=%s value=%s", e.Key, rng(e.KeyRange), rng(e.ValueRange))
	case ast.MapValue:
		d.f(depth, "%q map key=%s value=%s", e.Key, rng(e.KeyRange), rng(e.ValueRange))
	default:
		if e.Key == "" {
			d.f(depth, "- %q value=%s%s", e.Value, rng(e.ValueRange), extra)
			return
		}
		d.f(depth, "%q = %q key=%s value=%s%s", e.Key, e.Value, rng(e.KeyRange), rng(e.ValueRange), extra)
	}
	for _, it := range e.Items {
		d.entry(depth+1, it)
	}
}

func (d *dumper) f(depth int, format string, args ...any) {
	d.b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteByte('\n')
}

func rng(r ast.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

func (d *dumper) verbatim(depth int, label string, v ast.Verbatim) {
	if v.Text == "" {
		return
	}
	d.f(depth, "%s %s %d bytes", label, rng(v.Range), len(v.Text))
	for _, h := range v.Headings {
		d.f(depth+1, "h%d %q %s", h.Level, h.Text, rng(h.Range))
	}
}

func (d *dumper) step(st *ast.Step) {
	d.f(1, "step %d %q %s number=%s title=%s", st.Number, st.Title, rng(st.Range), rng(st.NumberRange), rng(st.TitleRange))
	for _, p := range st.LeadingProse {
		d.f(2, "prose %q %s", p.Text, rng(p.Range))
	}
	if st.Intent != nil {
		d.bullet(&st.Intent.Bullet, "intent %q", st.Intent.Text)
	}
	if a := st.Action; a != nil {
		d.bullet(&a.Bullet, "action %s tool=%s", a.Tool, rng(a.ToolRange))
		if a.Args != nil {
			d.value(3, a.Args)
		}
	}
	for _, a := range st.Asserts {
		d.bullet(&a.Bullet, "assert %T %q", a.Expr, format.Assert(a.Expr))
		d.assertParts(a.Expr)
	}
	for _, b := range st.Binds {
		d.bullet(&b.Bullet, "bind %T %q name=%s", b.Expr, format.Bind(b.Expr), rng(b.Expr.BoundNameRange()))
		switch x := b.Expr.(type) {
		case *ast.JSONBind:
			d.path(x.Path)
		case *ast.SelectionBind:
			d.selection(x.Sel)
		}
	}
	if e := st.Effect; e != nil {
		d.bullet(&e.Bullet, "effect %s", e.Value)
	}
	for _, p := range st.TrailingProse {
		d.f(2, "prose %q %s", p.Text, rng(p.Range))
	}
	d.verbatim(2, "interlude", st.Interlude)
}

func (d *dumper) bullet(b *ast.Bullet, format string, args ...any) {
	for _, p := range b.Leading {
		d.f(2, "prose %q %s", p.Text, rng(p.Range))
	}
	d.f(2, format+" %s", append(args, rng(b.Range))...)
}

func (d *dumper) assertParts(a ast.Assert) {
	if p := ast.AssertPath(a); p != nil {
		d.path(*p)
	}
	switch a := a.(type) {
	case *ast.StatusAssert:
		d.f(3, "op %s %s code %d %s", a.Op, rng(a.OpRange), a.Code, rng(a.CodeRange))
	case *ast.BodyContainsAssert:
		d.f(3, "negated=%v text %q %s", a.Negated, a.Text, rng(a.TextRange))
	case *ast.JSONIsAssert:
		d.f(3, "type %s %s", a.Type, rng(a.TypeRange))
	case *ast.JSONMatchesAssert:
		d.f(3, "pattern %q %s", a.Pattern, rng(a.PatternRange))
	case *ast.JSONLengthAssert:
		d.f(3, "op %s %s length %d %s", a.Op, rng(a.OpRange), a.Length, rng(a.LenRange))
	case *ast.JSONCompareAssert:
		d.f(3, "op %s %s", a.Op, rng(a.OpRange))
		d.value(3, a.Value)
	case *ast.SelectionAssert:
		d.selection(a.Sel)
		switch a.Kind {
		case ast.SelCompare:
			d.f(3, "op %s %s", a.Op, rng(a.OpRange))
			d.value(3, a.Value)
		case ast.SelIs:
			d.f(3, "type %s %s", a.Type, rng(a.TypeRange))
		case ast.SelMatches:
			d.f(3, "pattern %q %s", a.Pattern, rng(a.PatternRange))
		}
	}
}

// selection outlines a selection's parts with their positions.
func (d *dumper) selection(s *ast.Selection) {
	d.f(3, "selection %s pick %s %s", rng(s.Range), s.Pick, rng(s.PickRange))
	switch s.Source.Kind {
	case ast.SourceJSON:
		d.f(4, "source json %s", rng(s.Source.Range))
		d.pathAt(5, s.Source.Path)
	case ast.SourceLines:
		d.f(4, "source lines %s pattern %q %s", rng(s.Source.Range), s.Source.Pattern, rng(s.Source.PatternRange))
	}
	for _, c := range s.Where {
		d.f(4, "where %s op %q %s", rng(c.Range), c.Op, rng(c.OpRange))
		d.pathAt(5, c.Key)
		if c.Op == ast.CondMatches {
			d.f(5, "pattern %q %s", c.Pattern, rng(c.PatternRange))
		} else {
			d.value(5, c.Value)
		}
	}
	if s.HasBy {
		d.f(4, "by as=%q %s", s.Order, rng(s.OrderRange))
		d.pathAt(5, s.By)
	}
	if s.HasSep {
		d.f(4, "sep %q %s", s.Sep, rng(s.SepRange))
	}
	if len(s.Field.Elements) > 0 {
		d.f(4, "field")
		d.pathAt(5, s.Field)
	}
}

func (d *dumper) path(p ast.Path) { d.pathAt(3, p) }

func (d *dumper) pathAt(depth int, p ast.Path) {
	parts := make([]string, len(p.Elements))
	for i, e := range p.Elements {
		parts[i] = fmt.Sprintf("%s[%d]@%s", e.Name, e.Index, rng(e.Range))
	}
	d.f(depth, "path %s %s", rng(p.Range), strings.Join(parts, " "))
}

func (d *dumper) value(depth int, v ast.Value) {
	switch v := v.(type) {
	case *ast.Object:
		d.f(depth, "object %s", rng(v.Range))
		for _, m := range v.Members {
			d.f(depth+1, "key %q %s", m.Key, rng(m.KeyRange))
			d.value(depth+2, m.Value)
		}
	case *ast.Array:
		d.f(depth, "array %s", rng(v.Range))
		for _, e := range v.Elements {
			d.value(depth+1, e)
		}
	case *ast.String:
		d.f(depth, "string %q %s", v.Value, rng(v.Range))
		for _, h := range v.Holes {
			d.f(depth+1, "hole %s days=%d at=%d..%d %s name=%s", h.Text(), h.Days, h.Start, h.End, rng(h.Range), rng(h.NameRange))
		}
	default:
		d.f(depth, "%s %s", format.Value(v), rng(v.Span()))
	}
}
