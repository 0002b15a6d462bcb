package lsp

import (
	"github.com/reelier/reelier/lang/ast"
	"go.lsp.dev/protocol"
)

// Definition goes from a `{{var}}` hole to the bind whose value it reads
// (the latest bind of the name in an earlier step), or, for an input no
// step binds, to where the preamble documents it. On a bind's name it
// returns the bind itself. It returns nil for holes that nothing defines.
func Definition(doc *Document, pos protocol.Position) []protocol.Location {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil
	}
	sym, ok := flowOf(doc.Skill()).symbolAt(off)
	if !ok {
		return nil
	}
	if sym.bind == nil {
		in, ok := documentedInput(doc, sym.name)
		if !ok {
			return nil
		}
		r := ast.Range{Start: ast.Pos{Offset: int32(in.Offset)}, End: ast.Pos{Offset: int32(in.Offset + len(in.Name))}}
		return []protocol.Location{{URI: doc.URI, Range: doc.Mapper.Range(r)}}
	}
	return []protocol.Location{{URI: doc.URI, Range: doc.Mapper.Range(sym.bind.field.Expr.BoundNameRange())}}
}
