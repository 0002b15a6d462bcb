package grammar

import (
	"strings"
	"sync"

	"github.com/reelier/reelier/lang/ast"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdown is goldmark's parser, built on first use.
var markdown = sync.OnceValue(func() parser.Parser { return goldmark.New().Parser() })

// nextStepHeader finds the first step header at or after line from. In
// verbatim Markdown a line that looks like `### Step N` opens a step only
// if goldmark sees a heading there, so an example inside a fenced code
// block stays an example. It also returns the headings of the Markdown
// it parsed on the way, for the verbatim region's outline.
func (p *docParser) nextStepHeader(from int) (int, []ast.Heading) {
	cand := from
	for cand < len(p.lines) && !looksLikeStepHeader(p.text(p.line(cand))) {
		cand++
	}
	if cand == from {
		return from, nil
	}
	start := p.offsetOf(from)
	if cand == len(p.lines) {
		_, heads := p.headings(start, len(p.src))
		return cand, heads
	}
	lines, heads := p.headings(start, p.line(cand).next)
	if lines[cand] {
		return cand, heads
	}
	// The candidate sits inside a code block or similar: read the rest of
	// the file as Markdown once and take the first real header.
	lines, heads = p.headings(start, len(p.src))
	for i := cand + 1; i < len(p.lines); i++ {
		if lines[i] && looksLikeStepHeader(p.text(p.line(i))) {
			return i, heads
		}
	}
	return len(p.lines), heads
}

// headings parses src[start:end] as Markdown and returns the set of line
// indexes holding a heading, and the headings themselves.
func (p *docParser) headings(start, end int) (map[int]bool, []ast.Heading) {
	src := []byte(p.src[start:end])
	doc := markdown().Parse(text.NewReader(src))
	lines := map[int]bool{}
	var heads []ast.Heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*gast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		pos := p.table.pos(start + h.Lines().At(0).Start)
		idx := int(pos.Line) - 1
		lines[idx] = true
		l := p.line(idx)
		raw := p.text(l)
		heads = append(heads, ast.Heading{
			Level: h.Level,
			Text:  strings.TrimSpace(strings.Trim(strings.TrimSpace(raw), "#")),
			Range: p.lineRange(l),
		})
	}
	return lines, heads
}

// HasStepHeader reports whether src holds a Reelier step header — a whole
// `### Step N — Title` heading outside code blocks. A SKILL.md without
// one is an ordinary Agent Skill: instructions for an agent, with nothing
// for Reelier to replay (its own "### Step 1: Unpack" headings included).
func HasStepHeader(src []byte) bool {
	isHeader := func(line string) bool { return looksLikeStepHeader(line) && parseStepHeader(line).ok }
	found := false
	for line := range strings.SplitSeq(string(src), "\n") {
		if isHeader(strings.TrimRight(line, "\r")) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	doc := markdown().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*gast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		seg := h.Lines().At(0)
		start := seg.Start
		for start > 0 && src[start-1] != '\n' {
			start--
		}
		end := seg.Stop
		if isHeader(strings.TrimRight(string(src[start:end]), "\r\n")) {
			return true
		}
	}
	return false
}
