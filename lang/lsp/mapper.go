package lsp

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"go.lsp.dev/protocol"
)

// Mapper converts between byte offsets in one version of a document and
// LSP positions (a 0-based line and a 0-based column in UTF-16 code
// units). It is the only place in the server that knows about UTF-16.
//
// Two kinds of offset meet here. Text offsets count every byte of the
// document as the editor sent it. Tree offsets are the parser's: they count
// from the byte after a UTF-8 byte order mark, when the text has one.
// Lines end at "\n", "\r\n" or a lone "\r", as the protocol says.
type Mapper struct {
	text  string
	bom   int   // 3 when the text starts with a byte order mark, else 0
	lines []int // text offset of the first byte of each line
	ascii []bool
}

// NewMapper indexes the lines of text.
func NewMapper(text string) *Mapper {
	m := &Mapper{text: text, lines: make([]int, 1, 64), ascii: make([]bool, 1, 64)}
	if len(text) >= 3 && text[:3] == "\xEF\xBB\xBF" {
		m.bom = 3
	}
	m.ascii[0] = true
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= utf8.RuneSelf:
			m.ascii[len(m.ascii)-1] = false
		case c == '\n' || c == '\r' && (i+1 == len(text) || text[i+1] != '\n'):
			m.lines = append(m.lines, i+1)
			m.ascii = append(m.ascii, true)
		}
	}
	return m
}

// Text returns the text the mapper indexes.
func (m *Mapper) Text() string { return m.text }

// LineCount returns the number of lines (a final line break opens one more,
// empty line).
func (m *Mapper) LineCount() int { return len(m.lines) }

// TextOffset converts a position to a text offset. A column past the end
// of its line means the end of the line (as the protocol specifies), and a
// column inside a character that needs two UTF-16 units means the start of
// that character. The start of the line after the last one means the end
// of the text (some clients write the end of a document so); any other
// line past the end is an error.
func (m *Mapper) TextOffset(p protocol.Position) (int, error) {
	line := int(p.Line)
	if line == len(m.lines) && p.Character == 0 {
		return len(m.text), nil
	}
	if line >= len(m.lines) {
		return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", line, len(m.lines))
	}
	start, end := m.lines[line], m.lineEnd(line)
	if m.ascii[line] {
		return min(start+int(p.Character), end), nil
	}
	units := 0
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		w := utf16Len(r)
		if units+w > int(p.Character) {
			return i, nil
		}
		units += w
		i += size
	}
	return end, nil
}

// Offset converts a position to a tree offset (see Mapper).
func (m *Mapper) Offset(p protocol.Position) (int, error) {
	off, err := m.TextOffset(p)
	return max(off-m.bom, 0), err
}

// TextPosition converts a text offset to a position; offsets outside the
// text are clamped to it.
func (m *Mapper) TextPosition(off int) protocol.Position {
	off = min(max(off, 0), len(m.text))
	line := sort.Search(len(m.lines), func(i int) bool { return m.lines[i] > off }) - 1
	start := m.lines[line]
	if m.ascii[line] {
		return protocol.Position{Line: uint32(line), Character: uint32(off - start)}
	}
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(m.text[i:])
		if i+size > off { // off points inside a character: count up to its start
			break
		}
		units += utf16Len(r)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// Position converts a tree offset to a position.
func (m *Mapper) Position(off int) protocol.Position { return m.TextPosition(off + m.bom) }

// Range converts a range of the tree to a protocol range.
func (m *Mapper) Range(r ast.Range) protocol.Range {
	return protocol.Range{Start: m.Position(int(r.Start.Offset)), End: m.Position(int(r.End.Offset))}
}

// OffsetRange converts a protocol range to tree offsets [start, end).
func (m *Mapper) OffsetRange(r protocol.Range) (start, end int, err error) {
	if start, err = m.Offset(r.Start); err != nil {
		return 0, 0, err
	}
	if end, err = m.Offset(r.End); err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, fmt.Errorf("range ends before it starts")
	}
	return start, end, nil
}

// lineEnd returns the text offset where line's content ends, before its
// line break.
func (m *Mapper) lineEnd(line int) int {
	if line+1 >= len(m.lines) {
		return len(m.text)
	}
	end := m.lines[line+1] - 1
	if end > m.lines[line] && m.text[end] == '\n' && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// Slice returns the text of a range of the tree, clamped to the text.
func (m *Mapper) Slice(r ast.Range) string {
	body := m.text[m.bom:]
	start := min(max(int(r.Start.Offset), 0), len(body))
	end := min(max(int(r.End.Offset), start), len(body))
	return body[start:end]
}

// LineOf returns the 0-based line holding a tree offset.
func (m *Mapper) LineOf(off int) int { return int(m.Position(off).Line) }

// utf16Len is the number of UTF-16 units encoding r. An invalid byte
// decodes to utf8.RuneError and counts as one unit, as editors show it as
// one replacement character.
func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
