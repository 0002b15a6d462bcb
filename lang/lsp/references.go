package lsp

import "go.lsp.dev/protocol"

// References lists where the variable under the cursor is written: the
// bind that defines it (when includeDecl is set) and every hole that reads
// that bind's value. A hole that no bind reaches is grouped with the other
// unbound holes of the same name (an input passed with --var).
func References(doc *Document, pos protocol.Position, includeDecl bool) []protocol.Location {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil
	}
	flow := flowOf(doc.Skill())
	sym, ok := flow.symbolAt(off)
	if !ok {
		return nil
	}
	var out []protocol.Location
	for _, r := range flow.occurrences(sym, includeDecl) {
		out = append(out, protocol.Location{URI: doc.URI, Range: doc.Mapper.Range(r)})
	}
	return out
}
