package grammar

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

// body cuts the lines from index first on into preamble, steps, interludes
// and trailing text.
func (p *docParser) body(first int) {
	var prev *ast.Step
	expected := 1
	for regionStart := first; ; {
		header, heads := p.nextStepHeader(regionStart)
		verbatim := p.verbatim(regionStart, header, heads)
		switch {
		case prev == nil:
			p.skill.Preamble = verbatim
		case header < len(p.lines):
			prev.Interlude = verbatim
		default:
			p.skill.Trailing = verbatim
		}
		if header >= len(p.lines) || p.tooMany(header) {
			break
		}
		step, end := p.step(header, expected)
		p.steps++
		if !p.discard {
			p.skill.Steps = append(p.skill.Steps, step)
		}
		expected = step.Number + 1
		prev = step
		regionStart = end
	}
	if p.steps == 0 {
		rng := ast.Range{Start: p.table.pos(len(p.src)), End: p.table.pos(len(p.src))}
		if first < len(p.lines) {
			rng = p.lineRange(p.line(first))
		}
		p.report(0, CodeNoSteps, rng, msgNoSteps)
	}
}

// verbatim returns lines [from, to) as kept text, with its headings.
func (p *docParser) verbatim(from, to int, heads []ast.Heading) ast.Verbatim {
	start, end := p.offsetOf(from), p.offsetOf(to)
	v := ast.Verbatim{Text: p.src[start:end], Range: p.table.span(start, end)}
	for _, h := range heads {
		if int(h.Range.Start.Offset) < end {
			v.Headings = append(v.Headings, h)
		}
	}
	return v
}

// offsetOf returns the byte offset where line i starts (the end of the
// source for i past the last line).
func (p *docParser) offsetOf(i int) int {
	if i >= len(p.lines) {
		return len(p.src)
	}
	return p.line(i).start
}

// step parses the block whose header is line h, and returns it with the
// index of the first line after the block (a `##` heading, the next step
// header, or the end).
func (p *docParser) step(h int, expected int) (*ast.Step, int) {
	hl := p.line(h)
	text := p.text(hl)
	hdr := parseStepHeader(text)
	org := hl.at(0)
	step := p.newStep(ast.Step{
		HeaderRange: org.span(0, len(text)),
		Number:      hdr.number,
		NumberRange: org.span(hdr.numStart, hdr.numEnd),
		Title:       hdr.title,
		TitleRange:  org.span(hdr.titleStart, hdr.titleEnd),
	})
	if !hdr.ok {
		p.report(hdr.number, CodeStepHeader, step.HeaderRange, fmt.Sprintf(msgStepHeader, text))
		if step.Number == 0 {
			step.Number = expected
		}
	} else if hdr.number != expected {
		p.report(hdr.number, CodeStepSequence, step.NumberRange, fmt.Sprintf(msgStepSequence, expected, hdr.number))
	}
	end := h + 1
	for end < len(p.lines) {
		t := p.text(p.line(end))
		if looksLikeStepHeader(t) || isSectionHeading(t) {
			break
		}
		end++
	}
	last := h
	for i := h + 1; i < end; i++ {
		if !isBlankLine(p.text(p.line(i))) {
			last = i
		}
	}
	step.Range = ast.Range{Start: step.HeaderRange.Start, End: p.lineRange(p.line(last)).End}
	p.fields(step, h+1, end)
	return step, end
}

func isBlankLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isBlank(s[i]) {
			return false
		}
	}
	return true
}
