package lsp

import "go.lsp.dev/protocol"

// Folding returns a folding range for the frontmatter and for each step,
// from its header to its last non-blank line.
func Folding(doc *Document) []protocol.FoldingRange {
	skill := doc.Skill()
	m := doc.Mapper
	var out []protocol.FoldingRange
	add := func(start, end int) {
		s, e := m.Position(start).Line, m.Position(end).Line
		if e > s {
			out = append(out, protocol.FoldingRange{StartLine: s, EndLine: e, Kind: protocol.RegionFoldingRange})
		}
	}
	if fm := skill.Frontmatter; fm != nil {
		add(int(fm.Range.Start.Offset), int(fm.Range.End.Offset))
	}
	for _, st := range skill.Steps {
		add(int(st.Range.Start.Offset), int(st.Range.End.Offset))
	}
	return out
}
