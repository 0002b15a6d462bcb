package grammar

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
)

// line is one physical line of the source: [start, end) excludes the line
// terminator, next is the offset of the following line. It is a view that
// docParser.line builds from the table's lineRec.
type line struct {
	start, end, next int
	num              int    // 1-based
	text             string // src[start:end], which columns count in
	// cols is nil when text is all ASCII (a column is a byte count), the
	// index of a longer line's columns, or walkColumns for a line short
	// enough to walk.
	cols *colIndex
}

// lineRec is a line as the table keeps it, one per line of the file: 24
// bytes rather than line's 56 (#20), the rest derived by docParser.line.
type lineRec struct {
	start, end, next int32
	cols             *colIndex
}

// view returns the line of rec, the numth (1-based) of src.
func (r lineRec) view(src string, num int) line {
	return line{start: int(r.start), end: int(r.end), next: int(r.next), num: num, text: src[r.start:r.end], cols: r.cols}
}

// line returns line i (0-based) of the file.
func (p *docParser) line(i int) line { return p.lines[i].view(p.src, i+1) }

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

// splitLines cuts src into lines on "\n", dropping a "\r" before it. src
// is at most ast.MaxFileSize bytes, so offsets fit in an int32.
func splitLines(src string) []lineRec {
	lines := make([]lineRec, 0, strings.Count(src, "\n")+1)
	for start := 0; start < len(src); {
		end, next := len(src), len(src)
		if i := strings.IndexByte(src[start:], '\n'); i >= 0 {
			end, next = start+i, start+i+1
		}
		if end > start && src[end-1] == '\r' && next != end {
			end--
		}
		l := lineRec{start: int32(start), end: int32(end), next: int32(next)}
		if text := src[start:end]; !isASCII(text) {
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
type lineTable struct {
	src   string
	lines []lineRec
}

func (t lineTable) pos(off int) ast.Pos {
	lines := t.lines
	i := sort.Search(len(lines), func(i int) bool { return int(lines[i].next) > off })
	if i == len(lines) {
		if len(lines) == 0 {
			return ast.NewPos(off, 1, off+1)
		}
		last := lines[len(lines)-1]
		if last.next > last.end && off >= int(last.next) { // offset after a final newline
			return ast.NewPos(off, len(lines)+1, off-int(last.next)+1)
		}
		i = len(lines) - 1
	}
	l := lines[i].view(t.src, i+1)
	return ast.NewPos(off, l.num, l.column(off-l.start))
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
