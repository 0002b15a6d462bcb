package grammar

import (
	"sort"
	"strings"

	"github.com/reelier/reelier/ast"
)

// line is one physical line of the source: [start, end) excludes the line
// terminator, next is the offset of the following line.
type line struct {
	start, end, next int
	num              int // 1-based
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
		lines = append(lines, line{start: start, end: end, next: next, num: num})
		start = next
	}
	return lines
}

// lineTable converts byte offsets to positions.
type lineTable []line

func (t lineTable) pos(off int) ast.Pos {
	i := sort.Search(len(t), func(i int) bool { return t[i].next > off })
	if i == len(t) {
		if len(t) == 0 {
			return ast.Pos{Offset: off, Line: 1, Column: off + 1}
		}
		last := t[len(t)-1]
		if last.next > last.end && off >= last.next { // offset after a final newline
			return ast.Pos{Offset: off, Line: last.num + 1, Column: off - last.next + 1}
		}
		i = len(t) - 1
	}
	return ast.Pos{Offset: off, Line: t[i].num, Column: off - t[i].start + 1}
}

func (t lineTable) span(start, end int) ast.Range {
	return ast.Range{Start: t.pos(start), End: t.pos(end)}
}

// at returns the origin of byte col (0-based) of line l.
func (l line) at(col int) origin {
	return origin{Offset: l.start + col, Line: l.num, Column: col + 1}
}
