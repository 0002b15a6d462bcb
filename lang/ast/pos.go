package ast

import (
	"fmt"
	"unicode/utf8"
)

// Pos is one place in a file: a byte offset plus the 1-based line and
// 1-based column derived from it.
//
// Offset is what code computes with. Line and Column are what people and
// reports read, so the column counts characters (Unicode code points), the
// unit editors show: "é", "中" and "😀" are one column each, and so is a
// tab. A byte that is not valid UTF-8 counts as one character, as editors
// show it as one replacement character. The language server converts
// offsets to UTF-16 itself.
type Pos struct {
	Offset int32 `json:"offset"`
	Line   int32 `json:"line"`
	Column int32 `json:"column"`
}

// NewPos returns the position of byte offset with its 1-based line and
// column. Positions are stored as int32 to keep the tree small (#20): a
// file of 2 GiB or more is refused before it is parsed (MaxFileSize).
func NewPos(offset, line, column int) Pos {
	return Pos{Offset: int32(offset), Line: int32(line), Column: int32(column)}
}

// MaxFileSize is the largest file whose positions a Pos holds.
const MaxFileSize = 1<<31 - 1

// Column returns the 1-based column of byte offset off in line, a text
// whose first byte is at column 1: one more than the number of characters
// before off. An offset inside a character gives that character's column;
// each byte past the end of line counts one column (a line terminator).
func Column(line string, off int) int {
	col, i := 1, 0
	for i < off && i < len(line) {
		size := 1
		if line[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(line[i:])
			if i+size > off {
				return col
			}
		}
		i += size
		col++
	}
	return col + max(off-i, 0)
}

// Range is the half-open byte span [Start, End) of a node in its file.
type Range struct {
	Start Pos `json:"start"`
	End   Pos `json:"end"`
}

// String renders the start of the range as line:col.
func (r Range) String() string { return fmt.Sprintf("%d:%d", r.Start.Line, r.Start.Column) }

// Contains reports whether the byte offset lies inside the range (the end
// offset included, so a cursor right after a node still touches it).
func (r Range) Contains(offset int) bool {
	return int(r.Start.Offset) <= offset && offset <= int(r.End.Offset)
}

// Node is implemented by every syntax node that carries a range.
type Node interface {
	// Span returns the node's full range in the file.
	Span() Range
}
