package grammar

import (
	"sort"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
)

// origin is the file position of the first byte of a one-line fragment,
// with the fragment's text. Fragments never span lines, so a byte k into
// the fragment sits on the same line, as many columns further on as there
// are characters in the fragment before k. Callers count in bytes; only
// the column counts characters.
type origin struct {
	ast.Pos
	text  string // the fragment from Pos on (its line's rest may follow)
	ascii bool   // text is all ASCII: columns are byte counts
	// cols, when set, counts the columns of a longer text that holds this
	// fragment at byte base, so a column costs a bounded walk instead of
	// one from the fragment's start.
	cols *colIndex
	base int
}

// fragment returns the origin of text, a fragment whose first byte is at
// base in its file.
func fragment(base ast.Pos, text string) origin {
	o := origin{Pos: base, text: text, ascii: isASCII(text)}
	if !o.ascii {
		o.cols = newColIndex(text)
	}
	return o
}

// at returns the position of byte k of the fragment.
func (o origin) at(k int) ast.Pos {
	col := k
	switch {
	case o.ascii:
	case o.cols != nil && k >= 0:
		col = o.cols.column(o.base+k) - o.cols.column(o.base)
	default:
		col = ast.Column(o.text, k) - 1
	}
	return ast.Pos{Offset: o.Offset + int32(k), Line: o.Line, Column: o.Column + int32(col)}
}

// span returns the range of bytes [start, end) of the fragment.
func (o origin) span(start, end int) ast.Range {
	return ast.Range{Start: o.at(start), End: o.at(end)}
}

// from returns the origin of the fragment's tail that starts at byte k.
func (o origin) from(k int) origin {
	c := min(max(k, 0), len(o.text))
	t := origin{Pos: o.at(k), text: o.text[c:], ascii: o.ascii}
	if o.cols != nil && o.cols.boundary(o.base+c) {
		t.cols, t.base = o.cols, o.base+c
	}
	return t
}

// colStride is how many bytes apart a colIndex keeps its checkpoints;
// texts no longer than this are counted from their start.
const colStride = 256

// colIndex answers ast.Column for one text that is not all ASCII without
// walking the text from its start each time: a parser asks for thousands
// of positions on a long line (every JSON value of an action's arguments),
// and walking from the start made that quadratic. It keeps, about every
// colStride bytes, a byte offset where ast.Column's walk stops and the
// column there.
type colIndex struct {
	text string
	offs []int // offs[j]: the first stop of the walk at or after j*colStride
	cols []int // cols[j]: ast.Column(text, offs[j])
}

// newColIndex returns the index of text, or nil when text is short enough
// to be walked.
func newColIndex(text string) *colIndex {
	if len(text) <= colStride {
		return nil
	}
	n := len(text)/colStride + 1
	x := &colIndex{text: text, offs: make([]int, 0, n), cols: make([]int, 0, n)}
	col, i := 1, 0
	for i < len(text) {
		if i >= len(x.offs)*colStride {
			x.offs, x.cols = append(x.offs, i), append(x.cols, col)
		}
		size := 1
		if text[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		col++
	}
	return x
}

// checkpoint returns the index of the last checkpoint at or before off.
func (x *colIndex) checkpoint(off int) int {
	j := min(max(off, 0)/colStride, len(x.offs)-1)
	for j > 0 && x.offs[j] > off {
		j--
	}
	return j
}

// column returns ast.Column(x.text, off).
func (x *colIndex) column(off int) int {
	j := x.checkpoint(off)
	return x.cols[j] + ast.Column(x.text[x.offs[j]:], off-x.offs[j]) - 1
}

// offset returns a byte offset at or before the character at column col:
// the last checkpoint there, from which the caller walks on.
func (x *colIndex) offset(col int) int {
	j := sort.Search(len(x.cols), func(j int) bool { return x.cols[j] > col }) - 1
	return x.offs[max(j, 0)]
}

// boundary reports whether ast.Column's walk over the text stops at off,
// so that columns counted from off are differences of columns counted
// from the start.
func (x *colIndex) boundary(off int) bool {
	if off >= len(x.text) {
		return off == len(x.text)
	}
	j := x.checkpoint(off)
	i := x.offs[j]
	for i < off {
		size := 1
		if x.text[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(x.text[i:])
		}
		i += size
	}
	return i == off
}
