package grammar

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
)

// line is one physical line of the source: [start, end) excludes the line
// terminator, next is the offset of the following line.
type line struct {
	start, end, next int
	num              int    // 1-based
	text             string // src[start:end], which columns count in
	// cols is nil when text is all ASCII (a column is a byte count), the
	// index of a longer line's columns, or walkColumns for a line short
	// enough to walk.
	cols *colIndex
}

// walkColumns marks a line that is not all ASCII and is short enough to
// count its columns by walking it.
var walkColumns = &colIndex{}

// ascii reports whether the line is all ASCII.
func (l line) ascii() bool { return l.cols == nil }

// index returns the line's column index, or nil.
func (l line) index() *colIndex {
	if l.cols == walkColumns {
		return nil
	}
	return l.cols
}

// splitLines cuts src into lines on "\n", dropping a "\r" before it.
func splitLines(src string) []line {
	lines := make([]line, 0, strings.Count(src, "\n")+1)
	for start, num := 0, 1; start < len(src); num++ {
		end, next := len(src), len(src)
		if i := strings.IndexByte(src[start:], '\n'); i >= 0 {
			end, next = start+i, start+i+1
		}
		if end > start && src[end-1] == '\r' && next != end {
			end--
		}
		text := src[start:end]
		l := line{start: start, end: end, next: next, num: num, text: text}
		if !isASCII(text) {
			l.cols = walkColumns
			if x := newColIndex(text); x != nil {
				l.cols = x
			}
		}
		lines = append(lines, l)
		start = next
	}
	return lines
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// column returns the 1-based character column of byte k (0-based) of l.
func (l line) column(k int) int {
	switch {
	case l.ascii():
		return k + 1
	case l.index() != nil:
		return l.cols.column(k)
	}
	return ast.Column(l.text, k)
}

// lineTable converts byte offsets to positions.
type lineTable []line

func (t lineTable) pos(off int) ast.Pos {
	i := sort.Search(len(t), func(i int) bool { return t[i].next > off })
	if i == len(t) {
		if len(t) == 0 {
			return ast.NewPos(off, 1, off+1)
		}
		last := t[len(t)-1]
		if last.next > last.end && off >= last.next { // offset after a final newline
			return ast.NewPos(off, last.num+1, off-last.next+1)
		}
		i = len(t) - 1
	}
	return ast.NewPos(off, t[i].num, t[i].column(off-t[i].start))
}

func (t lineTable) span(start, end int) ast.Range {
	return ast.Range{Start: t.pos(start), End: t.pos(end)}
}

// at returns the origin of byte col (0-based) of line l.
func (l line) at(col int) origin {
	k := min(max(col, 0), len(l.text))
	o := origin{Pos: ast.NewPos(l.start+col, l.num, l.column(col)), text: l.text[k:], ascii: l.ascii()}
	if l.index() != nil && l.cols.boundary(k) {
		o.cols, o.base = l.cols, k
	}
	return o
}
