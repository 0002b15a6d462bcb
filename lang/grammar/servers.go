package grammar

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
)

// The Servers section. A level-2 ATX heading `## Servers` (any case) in the
// preamble opens it; it runs to the next Markdown heading or to the end of
// the preamble. Inside it, every list item is a server:
//
//	server   = ("-" | "*" | "+") blanks? name blanks? ":" blanks? code blanks? [ tools blanks? ] [ headers blanks? ]
//	name     = code | bare            (bare: no blank, ':' or '`')
//	tools    = "(tools:" blanks? [ tool { blanks? "," blanks? tool } blanks? ] ")"
//	tool     = code | bare            (bare: no blank, ',', '(', ')' or '`')
//	headers  = "(headers:" blanks? code { blanks? "," blanks? code } blanks? ")"
//	           each code a header "NAME: VALUE", NAME without blanks
//	code     = a Markdown code span: a run of N backticks, text, a run of
//	           exactly N backticks; one blank just inside each end is
//	           dropped when both ends have one and the text is not all
//	           blanks
//
// Blank lines, other text, thematic breaks and fenced code blocks are
// Markdown the section keeps without reading.
//
// A server line may hold no control, line-break or bidi character
// (termtext.Forbidden: C0 but tab, DEL, C1 with NEL, LS, PS, the bidi
// embeddings, overrides and isolates). Its name and command reach a
// terminal (the trust prompt), a shell (the command is started) and a
// workflow (`reelier ci` writes the commands into YAML, where YAML 1.1
// breaks lines on NEL, LS and PS); a character that can make what is
// shown differ from what runs is refused where it stands, before the
// line's shape is read. A tab is a blank.

// ServersHeading is the text of the heading that opens the section.
const ServersHeading = "Servers"

// servers reads the preamble's Servers section into the skill.
func (p *docParser) servers() {
	pre := p.skill.Preamble
	if pre.Text == "" {
		return
	}
	section := -1
	for i, h := range pre.Headings {
		if h.Level != 2 || !strings.EqualFold(h.Text, ServersHeading) || !p.atxHeading(h) {
			continue
		}
		if section >= 0 {
			p.report(0, CodeDuplicateServersSection, h.Range, msgDuplicateServersSection)
			continue
		}
		section = i
	}
	if section < 0 {
		return
	}
	from := int(pre.Headings[section].Range.Start.Line) // the line after the heading
	to := from
	for to < len(p.lines) && p.line(to).start < int(pre.Range.End.Offset) {
		to++
	}
	if section+1 < len(pre.Headings) {
		to = min(to, int(pre.Headings[section+1].Range.Start.Line)-1)
	}
	names := map[string]bool{}
	fence := ""
	for i := from; i < to; i++ {
		l := p.line(i)
		raw := p.text(l)
		t := strings.TrimLeft(raw, " \t")
		switch {
		case fenced(&fence, t):
			continue
		case !isListItem(t) || isThematicBreak(t):
			continue
		}
		t = strings.TrimRight(t, " \t")
		sv := p.serverLine(l.at(len(raw)-len(strings.TrimLeft(raw, " \t"))), t)
		if sv == nil {
			continue
		}
		if names[sv.Name] {
			p.report(0, CodeDuplicateServer, sv.NameRange, fmt.Sprintf(msgDuplicateServer, sv.Name))
			continue
		}
		names[sv.Name] = true
		p.skill.Servers = append(p.skill.Servers, sv)
	}
}

// atxHeading reports whether the heading is written with '#' marks (a
// setext heading's underline is not a line the section can start after).
func (p *docParser) atxHeading(h ast.Heading) bool {
	i := int(h.Range.Start.Line) - 1
	return i >= 0 && i < len(p.lines) && strings.HasPrefix(strings.TrimLeft(p.text(p.line(i)), " "), "#")
}

// isListItem reports whether a line (leading blanks removed) is a list
// item: '-' starts one (as in a step), '*' and '+' when a blank follows.
func isListItem(t string) bool {
	switch {
	case t == "":
		return false
	case t[0] == '-':
		return true
	case t[0] == '*' || t[0] == '+':
		return len(t) == 1 || t[1] == ' ' || t[1] == '\t'
	}
	return false
}

// isThematicBreak reports whether a line is a Markdown thematic break:
// three or more of one of '-', '*', '_', with blanks anywhere.
func isThematicBreak(t string) bool {
	var mark byte
	n := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == ' ' || c == '\t':
		case (c == '-' || c == '*' || c == '_') && (mark == 0 || c == mark):
			mark = c
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// serverLine parses one server bullet, t, which starts at org and has no
// blanks at either end. It reports what is wrong and returns nil when the
// line is not a server.
func (p *docParser) serverLine(org origin, t string) *ast.Server {
	if at, r := termtext.FirstForbidden(t); at >= 0 {
		p.report(0, CodeServerControl, org.span(at, at+utf8.RuneLen(r)), fmt.Sprintf(msgServerControl, termtext.CodePoint(r)))
		return nil
	}
	s := &serverScanner{src: t}
	fail := func() *ast.Server {
		at := min(s.pos, len(t))
		p.report(0, CodeMalformedServer, org.span(at, len(t)), fmt.Sprintf(msgMalformedServer, t))
		return nil
	}
	if !s.eat("-") && !s.eat("*") && !s.eat("+") {
		return fail()
	}
	s.blanks()
	sv := &ast.Server{Range: org.span(0, len(t))}
	nameStart := s.pos
	name, ok := s.item(":")
	if !ok || strings.TrimSpace(name.text) == "" {
		s.pos = nameStart
		return fail()
	}
	sv.Name, sv.NameRange = name.text, org.span(name.start, name.end)
	s.blanks()
	if !s.eat(":") {
		return fail()
	}
	s.blanks()
	cmdStart := s.pos
	cmd, ok := s.code()
	if !ok {
		s.pos = cmdStart
		return fail()
	}
	sv.Command, sv.CommandRange = cmd.text, org.span(cmdStart, s.pos)
	s.blanks()
	if s.pos < len(t) && !strings.HasPrefix(t[s.pos:], "(headers:") {
		if !s.eat("(tools:") {
			return fail()
		}
		s.blanks()
		if !s.eat(")") && !s.list(func() bool {
			tool, ok := s.item(",()")
			if !ok || tool.text == "" {
				return false
			}
			sv.Tools = append(sv.Tools, ast.ServerTool{Name: tool.text, Range: org.span(tool.start, tool.end)})
			return true
		}) {
			return fail()
		}
		s.blanks()
	}
	if s.eat("(headers:") {
		s.blanks()
		if !s.list(func() bool {
			h, ok := s.code()
			name, _, colon := strings.Cut(h.text, ":")
			if !ok || !colon || strings.TrimSpace(name) == "" || strings.ContainsAny(strings.TrimSpace(name), " \t") {
				return false
			}
			sv.Headers = append(sv.Headers, ast.ServerHeader{Text: h.text, Range: org.span(h.start, h.end)})
			return true
		}) {
			return fail()
		}
		s.blanks()
	}
	if s.pos < len(t) {
		return fail()
	}
	if strings.TrimSpace(sv.Command) == "" {
		p.report(0, CodeEmptyServerCommand, sv.CommandRange, fmt.Sprintf(msgEmptyServerCommand, sv.Name))
		return nil
	}
	return sv
}

// serverScanner walks one server bullet.
type serverScanner struct {
	src string
	pos int
}

// piece is a name, command or tool read from the line: its text and
// where the text (inside any backticks) is.
type piece struct {
	text       string
	start, end int
}

func (s *serverScanner) eat(lit string) bool {
	if strings.HasPrefix(s.src[s.pos:], lit) {
		s.pos += len(lit)
		return true
	}
	return false
}

// list reads `item, item, …)`: one or more items, each read by item,
// separated by commas and closed by ")", blanks allowed around them. It
// reports false when an item or a separator is missing; the position is
// then where the bad item started or where a comma or ")" was wanted.
func (s *serverScanner) list(item func() bool) bool {
	for {
		start := s.pos
		if !item() {
			s.pos = start
			return false
		}
		s.blanks()
		if s.eat(")") {
			return true
		}
		if !s.eat(",") {
			return false
		}
		s.blanks()
	}
}

func (s *serverScanner) blanks() {
	for s.pos < len(s.src) && isBlank(s.src[s.pos]) {
		s.pos++
	}
}

// item reads a code span, or a bare run of characters other than blanks,
// backticks and those in stop.
func (s *serverScanner) item(stop string) (piece, bool) {
	if s.pos < len(s.src) && s.src[s.pos] == '`' {
		return s.code()
	}
	start := s.pos
	for s.pos < len(s.src) && !isBlank(s.src[s.pos]) && s.src[s.pos] != '`' && !strings.ContainsRune(stop, rune(s.src[s.pos])) {
		s.pos++
	}
	return piece{text: s.src[start:s.pos], start: start, end: s.pos}, s.pos > start
}

// code reads a Markdown code span: a run of backticks, the text, and a
// run of exactly as many.
func (s *serverScanner) code() (piece, bool) {
	open := s.pos
	for s.pos < len(s.src) && s.src[s.pos] == '`' {
		s.pos++
	}
	n := s.pos - open
	if n == 0 {
		return piece{}, false
	}
	for i := s.pos; i < len(s.src); {
		if s.src[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s.src) && s.src[j] == '`' {
			j++
		}
		if j-i == n {
			start, end := s.pos, i
			text := s.src[start:end]
			if len(text) >= 2 && text[0] == ' ' && text[len(text)-1] == ' ' && strings.Trim(text, " ") != "" {
				start, end = start+1, end-1
				text = s.src[start:end]
			}
			s.pos = j
			return piece{text: text, start: start, end: end}, true
		}
		i = j
	}
	s.pos = open
	return piece{}, false
}

// fenced reports whether a line (t, its indentation cut) is a code fence
// or inside one, keeping in *fence the fence that is open ("" when none):
// a list section's fenced example is not a list item.
func fenced(fence *string, t string) bool {
	switch {
	case *fence != "":
		if strings.HasPrefix(t, *fence) {
			*fence = ""
		}
		return true
	case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
		*fence = t[:3]
		return true
	}
	return false
}
