package grammar

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/reelier/reelier/lang/ast"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// docParser holds the state of one Parse call.
type docParser struct {
	file  string
	src   string
	lines []lineRec
	table lineTable
	diags ast.Diagnostics
	exprs exprCache
	skill *ast.Skill
	// stopped is set once maxProblems diagnostics were made: the rest of
	// the file is not read (tooMany).
	stopped bool
	// steps counts the steps parsed; with discard set they are not kept
	// in the tree (Check).
	steps   int
	discard bool
	// asserts hands out assert bullets from chunks: one allocation for
	// many fields rather than one each (#20).
	asserts slab[ast.AssertField]
	// nodes hands out a step's other fields the same way.
	nodes struct {
		intents slab[ast.IntentField]
		actions slab[ast.ActionField]
		effects slab[ast.EffectField]
		binds   slab[ast.BindField]
	}
	// scratch, with discard set, is the one step every step is parsed
	// into: a step is let go once parsed, so its memory serves the next.
	scratch *ast.Step
}

// newAssert returns a field from the current chunk.
func (p *docParser) newAssert(f ast.AssertField) *ast.AssertField {
	a := p.asserts.new()
	*a = f
	return a
}

// newStep returns the step to parse the next one into: a new one, or
// with discard set the scratch step, its nodes (assert fields, JSON
// values, paths) handed out again.
func (p *docParser) newStep(s ast.Step) *ast.Step {
	if !p.discard {
		kept := s
		return &kept
	}
	if p.scratch == nil {
		p.scratch = new(ast.Step)
	}
	p.asserts.reset()
	p.nodes.intents.reset()
	p.nodes.actions.reset()
	p.nodes.effects.reset()
	p.nodes.binds.reset()
	p.exprs.reset()
	*p.scratch = s
	return p.scratch
}

// Parse parses a SKILL.md file. It always returns a skill (possibly partial)
// and every diagnostic it found; the file is valid iff no diagnostic has
// error severity. A leading UTF-8 byte order mark is recorded and skipped:
// positions count from the byte after it.
func Parse(filename string, src []byte) (*ast.Skill, ast.Diagnostics) {
	return parse(filename, src, false)
}

// ParseShared is Parse for a caller that never modifies src afterwards:
// the tree's texts are then views of src rather than of a copy of it,
// which saves a copy of the file in time and memory (the commands that
// read a file, parse it once and exit). Modifying src after ParseShared
// changes the tree's texts.
func ParseShared(filename string, src []byte) (*ast.Skill, ast.Diagnostics) {
	return parse(filename, src, true)
}

// Check parses src as ParseShared does (src must not be modified
// afterwards) and returns the same diagnostics, but keeps no step in the
// tree: it returns the skill without its steps, and how many it has. Each
// step is let go once parsed, so a large file is checked in the memory
// of one step rather than of its whole tree (`reelier parse` without
// --json).
func Check(filename string, src []byte) (*ast.Skill, int, ast.Diagnostics) {
	p, diags := newParser(filename, src, true, true)
	if p == nil {
		return &ast.Skill{BOM: bytes.HasPrefix(src, utf8BOM)}, 0, diags
	}
	skill, diags := p.run()
	return skill, p.steps, diags
}

func parse(filename string, src []byte, shared bool) (*ast.Skill, ast.Diagnostics) {
	p, diags := newParser(filename, src, shared, false)
	if p == nil {
		return &ast.Skill{BOM: bytes.HasPrefix(src, utf8BOM)}, diags
	}
	return p.run()
}

// newParser prepares the parse of src, or returns the diagnostics of a
// file it refuses to read.
func newParser(filename string, src []byte, shared, discard bool) (*docParser, ast.Diagnostics) {
	skill := &ast.Skill{}
	if bytes.HasPrefix(src, utf8BOM) {
		skill.BOM = true
		src = src[len(utf8BOM):]
	}
	if len(src) > ast.MaxFileSize {
		return nil, tooLarge(filename, len(src))
	}
	text := ""
	if shared {
		text = unsafe.String(unsafe.SliceData(src), len(src))
	} else {
		text = string(src)
	}
	p := &docParser{file: filename, src: text, skill: skill, discard: discard}
	p.exprs.setChunked()
	if discard {
		p.exprs.setReuse()
		p.asserts.reuse = true
		p.nodes.intents.reuse, p.nodes.actions.reuse = true, true
		p.nodes.effects.reuse, p.nodes.binds.reuse = true, true
	}
	return p, nil
}

// run parses the whole file.
func (p *docParser) run() (*ast.Skill, ast.Diagnostics) {
	skill := p.skill
	p.lines = splitLines(p.src)
	p.table = lineTable{p.src, p.lines}
	if len(p.lines) > 0 {
		first := p.line(0)
		skill.CRLF = first.next > first.end+1
	}
	body := p.frontmatter()
	p.body(body)
	if !p.stopped {
		p.servers()
	}
	sort.SliceStable(p.diags, func(i, j int) bool { return p.diags[i].Range.Start.Offset < p.diags[j].Range.Start.Offset })
	return skill, p.diags
}

// tooLarge is the one diagnostic of a file too large for the tree's
// positions, at its start.
func tooLarge(filename string, size int) ast.Diagnostics {
	at := ast.Pos{Line: 1, Column: 1}
	return ast.Diagnostics{{File: filename, Range: ast.Range{Start: at, End: at}, Code: CodeFileTooLarge, Message: fmt.Sprintf(msgFileTooLarge, strconv.Itoa(size))}}
}

func (p *docParser) text(l line) string { return p.src[l.start:l.end] }

func (p *docParser) report(step int, code string, rng ast.Range, msg string) *ast.Diagnostic {
	p.diags = append(p.diags, ast.Diagnostic{File: p.file, Range: rng, Code: code, Step: step, Message: msg})
	return &p.diags[len(p.diags)-1]
}

// tooMany reports whether the parser has stopped reading because it made
// maxProblems diagnostics; the first time, it says so at line i, where
// reading stops. A file that broken is not worth the memory and time of
// every further problem, which a hostile file can make one per two bytes.
func (p *docParser) tooMany(i int) bool {
	if p.stopped || len(p.diags) < maxProblems {
		return p.stopped
	}
	p.stopped = true
	p.report(0, CodeTooManyProblems, p.lineRange(p.line(i)), msgTooManyProblems)
	return true
}

func (p *docParser) lineRange(l line) ast.Range {
	return l.at(0).span(0, l.end-l.start)
}

// frontmatter parses the `---` block and returns the index of the first
// body line.
func (p *docParser) frontmatter() int {
	zero := ast.Range{Start: ast.Pos{Line: 1, Column: 1}, End: ast.Pos{Line: 1, Column: 1}}
	if len(p.lines) == 0 || strings.TrimSpace(p.text(p.line(0))) != "---" {
		if len(p.lines) > 0 {
			zero = p.lineRange(p.line(0))
		}
		p.report(0, CodeMissingFence, zero, msgMissingFence)
		return 0
	}
	closing := -1
	for i := 1; i < len(p.lines); i++ {
		if strings.TrimSpace(p.text(p.line(i))) == "---" {
			closing = i
			break
		}
	}
	open := p.lineRange(p.line(0))
	if closing < 0 {
		p.report(0, CodeUnclosedFence, open, msgUnclosedFence)
		return 1
	}
	fm := &ast.Frontmatter{
		Range: ast.Range{Start: open.Start, End: p.lineRange(p.line(closing)).End},
		Text:  p.src[p.line(0).start:p.line(closing).next],
	}
	cut := p.readFrontmatter(fm, 0, closing)
	p.skill.Frontmatter = fm
	for _, key := range []string{"name", "description"} {
		if cut {
			break // the key may be in the part not read
		}
		code := CodeMissingName
		if key == "description" {
			code = CodeMissingDescription
		}
		switch e := fm.Lookup(key); {
		case e == nil:
			p.report(0, code, open, fmt.Sprintf(msgMissingKey, key))
		case strings.TrimSpace(e.Value) == "":
			// An empty value is a missing value: the spec requires both
			// fields, and a run record cannot be named after nothing.
			p.report(0, code, e.KeyRange, fmt.Sprintf(msgMissingKey, key))
		}
	}
	return closing + 1
}
