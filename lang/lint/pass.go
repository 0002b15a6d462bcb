package lint

import (
	"bytes"
	"fmt"
	"sort"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// File is one skill to lint: its name, its bytes as read and what the
// parser made of them.
type File struct {
	// Name is the path as the user gave it; diagnostics carry it.
	Name string
	// Src is the file content, including a byte order mark if it has one.
	Src []byte
	// Skill and Diags are the parser's result for Src.
	Skill *ast.Skill
	Diags ast.Diagnostics
}

// ParseFile parses src and returns it as a File.
func ParseFile(name string, src []byte) *File {
	skill, diags := grammar.Parse(name, src)
	return &File{Name: name, Src: src, Skill: skill, Diags: diags}
}

// body returns the bytes that positions count from: Src without its byte
// order mark.
func (f *File) body() []byte {
	if f.Skill != nil && f.Skill.BOM {
		return bytes.TrimPrefix(f.Src, utf8BOM)
	}
	return f.Src
}

// Pass is what a rule sees while it runs: the file, its tree, the date the
// lint run takes as today, and a way to report.
type Pass struct {
	// Rule is the rule being run.
	Rule *Rule
	// File is the file being linted.
	File *File
	// Skill is File.Skill, never nil.
	Skill *ast.Skill
	// Src is the file body that ranges index (without a byte order mark).
	Src []byte
	// Today is the UTC calendar date the run treats as today.
	Today time.Time

	lines  []int // byte offset of the start of each line
	facts  *facts
	report func(*Rule, ast.Diagnostic)
}

// Report records a finding of the running rule. The driver fills in the
// file, the code and the configured severity.
func (p *Pass) Report(d ast.Diagnostic) { p.report(p.Rule, d) }

// Reportf reports a finding at rng in step (0 outside steps) with a
// formatted message and no fix.
func (p *Pass) Reportf(step int, rng ast.Range, format string, args ...any) {
	p.Report(ast.Diagnostic{Step: step, Range: rng, Message: fmt.Sprintf(format, args...)})
}

// pos converts a byte offset of Src to a position.
func (p *Pass) pos(off int) ast.Pos {
	if p.lines == nil {
		p.lines = lineStarts(p.Src)
	}
	i := sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off }) - 1
	start, end := p.lines[i], len(p.Src)
	if i+1 < len(p.lines) {
		end = p.lines[i+1]
	}
	return ast.NewPos(off, i+1, ast.Column(string(p.Src[start:end]), off-start))
}

// span converts a byte range of Src to an ast.Range.
func (p *Pass) span(start, end int) ast.Range {
	return ast.Range{Start: p.pos(start), End: p.pos(end)}
}

// lineStarts returns the offset of the first byte of every line of src.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, 64)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// eol returns the line terminator the file uses.
func (p *Pass) eol() string {
	if p.Skill.CRLF {
		return "\r\n"
	}
	return "\n"
}

// lineEnd returns the offset of the end of the line holding off, before
// its terminator.
func (p *Pass) lineEnd(off int) int {
	i := off
	for i < len(p.Src) && p.Src[i] != '\n' {
		i++
	}
	if i > off && p.Src[i-1] == '\r' {
		i--
	}
	return i
}

// insertAt is a fix edit inserting text at a byte offset.
func (p *Pass) insertAt(off int, text string) ast.TextEdit {
	at := p.pos(off)
	return ast.TextEdit{Range: ast.Range{Start: at, End: at}, NewText: text}
}

// replace is a fix edit replacing a range.
func replace(rng ast.Range, text string) ast.TextEdit {
	return ast.TextEdit{Range: rng, NewText: text}
}

// fix builds a single-edit-set suggested fix.
func fix(title string, edits ...ast.TextEdit) []ast.SuggestedFix {
	return []ast.SuggestedFix{{Title: title, Edits: edits}}
}

// stringInner returns the byte range of a JSON string literal's text
// between its quotes, and whether that text is exactly the decoded value
// (no escape sequences), so decoded offsets map one to one onto the file.
func (p *Pass) stringInner(s *ast.String) (start, end int, plain bool) {
	start, end = int(s.Range.Start.Offset)+1, int(s.Range.End.Offset)-1
	if start > end || end > len(p.Src) {
		return start, start, false
	}
	return start, end, string(p.Src[start:end]) == s.Value
}

// text returns the source text of a range.
func (p *Pass) text(r ast.Range) string {
	if r.Start.Offset < 0 || r.Start.Offset > r.End.Offset || int(r.End.Offset) > len(p.Src) {
		return ""
	}
	return string(p.Src[r.Start.Offset:r.End.Offset])
}
