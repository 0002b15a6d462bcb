package grammar

import (
	"io"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/reelier/reelier/internal/words"
)

// Token types shared by the mini-language lexers. They are negative, below
// participle's EOF, as participle expects of custom symbols.
const (
	tWord   lexer.TokenType = lexer.EOF - 1 - iota // letters, digits, underscore (and '-' in frontmatter keys)
	tOp                                            // == != >= <= > <
	tAssign                                        // =
	tDot                                           // .
	tColon                                         // :
	tDash                                          // -
	tSign                                          // + or - inside a template hole
	tQuoted                                        // "..." up to the line's last quote
	tRegex                                         // /.../ up to the line's last slash
	tRest                                          // the rest of the line, trimmed
	tTool                                          // a run of non-blank characters
	tJunk                                          // any character no rule accepts
	tLParen                                        // ( in a selection
	tRParen                                        // ) in a selection
	tString                                        // a JSON string in a selection, to its own closing quote
	tNumber                                        // a JSON number after an operator in a selection
)

// Symbols implements lexer.Definition. It builds the map on each call:
// participle asks only while building a grammar, which happens during
// package initialisation, possibly before package-level maps are set.
func (miniLexer) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Word": tWord, "Op": tOp, "Assign": tAssign, "Dot": tDot,
		"Colon": tColon, "Dash": tDash, "Sign": tSign, "Quoted": tQuoted, "Regex": tRegex,
		"Rest": tRest, "Tool": tTool, "Junk": tJunk,
		"LParen": tLParen, "RParen": tRParen, "String": tString, "Number": tNumber,
	}
}

// mode is a hand-written tokenizer for one mini-language. Hand-written
// lexers cost a fraction of participle's regexp lexer on these short lines,
// and they can be context sensitive where the languages are ("the rest of
// the line after an operator", "up to the last quote").
type mode func(s *scanner)

// miniLexer adapts a mode to participle's lexer.Definition. limit, when
// not zero, replaces maxTokens as the bound on the tokens of one line.
type miniLexer struct {
	scan  mode
	limit int
}

// Lex implements lexer.Definition.
func (m miniLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	var b strings.Builder
	if _, err := io.Copy(&b, r); err != nil {
		return nil, err
	}
	return m.LexString(filename, b.String())
}

// LexString implements lexer.StringDefinition.
func (m miniLexer) LexString(_ string, input string) (lexer.Lexer, error) {
	s := &scanner{src: input, toks: make([]lexer.Token, 0, 8), limit: m.limit}
	m.scan(s)
	if s.full {
		if m.limit != 0 {
			return nil, errTooManySelTokens
		}
		return nil, errTooManyTokens
	}
	s.toks = append(s.toks, lexer.EOFToken(s.pos(len(input))))
	return &tokenList{toks: s.toks}, nil
}

// scanner holds a line being tokenized. Positions carry byte offsets; line
// and column are derived later from the file's line table.
type scanner struct {
	src  string
	i    int
	toks []lexer.Token
	full bool // maxTokens were made: the scan stopped
	// limit, when not zero, replaces maxTokens (selections are longer
	// than the other forms: maxSelTokens).
	limit int
}

func (s *scanner) pos(off int) lexer.Position {
	return lexer.Position{Offset: off, Line: 1, Column: off + 1}
}

// emit appends a token and moves past it; past maxTokens it ends the
// scan instead.
func (s *scanner) emit(t lexer.TokenType, start, end int) {
	if len(s.toks) == maxTokens && s.limit == 0 || s.limit != 0 && len(s.toks) == s.limit {
		s.full, s.i = true, len(s.src)
		return
	}
	s.toks = append(s.toks, lexer.Token{Type: t, Value: s.src[start:end], Pos: s.pos(start)})
	s.i = end
}

func (s *scanner) skipSpace() bool {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
		s.i++
	}
	return s.i < len(s.src)
}

func (s *scanner) word(extra byte) int {
	j := s.i
	for j < len(s.src) && (words.IsIdentByte(s.src[j]) || (extra != 0 && s.src[j] == extra)) {
		j++
	}
	return j
}

func (s *scanner) rest() {
	if s.skipSpace() {
		s.emit(tRest, s.i, len(strings.TrimRight(s.src, " \t")))
	}
}

// upToLast emits a token running from the current byte to the last
// occurrence of the same delimiter in the line; with no closing delimiter
// the lone byte becomes junk.
func (s *scanner) upToLast(t lexer.TokenType) {
	delim := s.src[s.i]
	end := strings.LastIndexByte(s.src, delim)
	if end <= s.i {
		s.emit(tJunk, s.i, s.i+1)
		return
	}
	s.emit(t, s.i, end+1)
}

// operator emits the token at one of = ! < >, taking a following = with
// it: = alone is tAssign, ! alone junk, and ==, !=, <, <=, >, >= are an
// operator, which it reports.
func (s *scanner) operator() bool {
	n := 1
	if s.i+1 < len(s.src) && s.src[s.i+1] == '=' {
		n = 2
	}
	switch s.src[s.i : s.i+n] {
	case "=":
		s.emit(tAssign, s.i, s.i+1)
	case "!":
		s.emit(tJunk, s.i, s.i+1)
	default:
		s.emit(tOp, s.i, s.i+n)
		return true
	}
	return false
}

// exprMode tokenizes assert and bind expressions. After a comparison
// operator the rest of the line is one token: a JSON scalar or an integer.
func exprMode(s *scanner) {
	for s.skipSpace() {
		c := s.src[s.i]
		switch {
		case words.IsIdentByte(c):
			s.emit(tWord, s.i, s.word(0))
		case c == '.':
			s.emit(tDot, s.i, s.i+1)
		case c == '"':
			s.upToLast(tQuoted)
		case c == '/':
			s.upToLast(tRegex)
		case c == '=' || c == '!' || c == '<' || c == '>':
			if s.operator() {
				s.rest()
			}
		default:
			s.emit(tJunk, s.i, s.i+1)
		}
	}
}

// lineMode tokenizes `key: value` lines: the frontmatter line and the
// step bullet. Keys may contain hyphens; the value is the rest of the line.
func lineMode(s *scanner) {
	if s.skipSpace() && s.src[s.i] == '-' {
		s.emit(tDash, s.i, s.i+1)
	}
	if s.skipSpace() && words.IsIdentByte(s.src[s.i]) {
		s.emit(tWord, s.i, s.word('-'))
	}
	if s.skipSpace() && s.src[s.i] == ':' {
		s.emit(tColon, s.i, s.i+1)
		s.rest()
		return
	}
	if s.skipSpace() {
		s.emit(tJunk, s.i, len(s.src))
	}
}

// actionMode tokenizes an action value: a tool name, then the JSON text.
func actionMode(s *scanner) {
	if !s.skipSpace() {
		return
	}
	j := s.i
	for j < len(s.src) && s.src[j] != ' ' && s.src[j] != '\t' {
		j++
	}
	s.emit(tTool, s.i, j)
	s.rest()
}

// holeMode tokenizes the inside of a `{{…}}` template hole.
func holeMode(s *scanner) {
	for s.skipSpace() {
		c := s.src[s.i]
		switch {
		case words.IsIdentByte(c):
			s.emit(tWord, s.i, s.word(0))
		case c == '+' || c == '-':
			s.emit(tSign, s.i, s.i+1)
		default:
			s.emit(tJunk, s.i, s.i+1)
		}
	}
}

// tokenList replays a pre-scanned token slice.
type tokenList struct {
	toks []lexer.Token
	i    int
}

// Next implements lexer.Lexer.
func (l *tokenList) Next() (lexer.Token, error) {
	t := l.toks[l.i]
	if l.i < len(l.toks)-1 {
		l.i++
	}
	return t, nil
}
