package lsp

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"go.lsp.dev/protocol"
)

// Symbols returns the document's outline in file order: one symbol per
// step (its detail is the intent) with its action, asserts and binds as
// children, and the Markdown headings of the text around the steps.
func Symbols(doc *Document) []protocol.DocumentSymbol {
	skill := doc.Skill()
	m := doc.Mapper
	var out []protocol.DocumentSymbol
	heading := func(v ast.Verbatim) {
		for _, h := range v.Headings {
			r := m.Range(h.Range)
			out = append(out, protocol.DocumentSymbol{Name: h.Text, Detail: fmt.Sprintf("h%d", h.Level), Kind: protocol.SymbolKindNamespace, Range: r, SelectionRange: r})
		}
	}
	heading(skill.Preamble)
	for _, st := range skill.Steps {
		out = append(out, stepSymbol(m, st))
		heading(st.Interlude)
	}
	heading(skill.Trailing)
	return out
}

func stepSymbol(m *Mapper, st *ast.Step) protocol.DocumentSymbol {
	s := protocol.DocumentSymbol{
		Name:           fmt.Sprintf("Step %d — %s", st.Number, st.Title),
		Kind:           protocol.SymbolKindFunction,
		Range:          m.Range(st.Range),
		SelectionRange: m.Range(st.HeaderRange),
	}
	if st.Intent != nil {
		s.Detail = st.Intent.Text
	}
	child := func(name, detail string, kind protocol.SymbolKind, b ast.Bullet) {
		s.Children = append(s.Children, protocol.DocumentSymbol{Name: name, Detail: detail, Kind: kind, Range: m.Range(b.Range), SelectionRange: m.Range(b.ValueRange)})
	}
	if a := st.Action; a != nil && a.Tool != "" {
		child(a.Tool, "action", protocol.SymbolKindMethod, a.Bullet)
	}
	for _, a := range st.Asserts {
		child(format.Assert(a.Expr), "assert", protocol.SymbolKindBoolean, a.Bullet)
	}
	for _, b := range st.Binds {
		child(b.Expr.BoundName(), "bind: "+format.Bind(b.Expr), protocol.SymbolKindVariable, b.Bullet)
	}
	return s
}
