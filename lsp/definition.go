package lsp

import "go.lsp.dev/protocol"

// Definition goes from a `{{var}}` hole to the bind whose value it reads
// (the latest bind of the name in an earlier step). On a bind's name it
// returns the bind itself. It returns nil for holes that no bind reaches.
func Definition(doc *Document, pos protocol.Position) []protocol.Location {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil
	}
	sym, ok := flowOf(doc.Skill()).symbolAt(off)
	if !ok || sym.bind == nil {
		return nil
	}
	return []protocol.Location{{URI: doc.URI, Range: doc.Mapper.Range(sym.bind.field.Expr.BoundNameRange())}}
}
