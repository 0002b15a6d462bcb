package lsp

import (
	"sort"

	"github.com/reelier/reelier/lang/ast"
	"go.lsp.dev/protocol"
)

// The token types and modifiers the server uses, in legend order: a
// token's type is its index in tokenTypes, its modifiers a bit set over
// tokenModifiers.
var (
	tokenTypes = []protocol.SemanticTokenTypes{
		protocol.SemanticTokenKeyword, protocol.SemanticTokenNumber, protocol.SemanticTokenString,
		protocol.SemanticTokenProperty, protocol.SemanticTokenFunction, protocol.SemanticTokenVariable,
		protocol.SemanticTokenOperator, protocol.SemanticTokenRegexp, protocol.SemanticTokenType,
		protocol.SemanticTokenEnumMember,
	}
	tokenModifiers = []protocol.SemanticTokenModifiers{
		protocol.SemanticTokenModifierDeclaration, protocol.SemanticTokenModifierReadonly, protocol.SemanticTokenModifierDefaultLibrary,
	}
)

// Indexes into tokenTypes and bits of tokenModifiers.
const (
	tokKeyword uint32 = iota
	tokNumber
	tokString
	tokProperty
	tokFunction
	tokVariable
	tokOperator
	tokRegexp
	tokType
	tokEnumMember

	modDeclaration uint32 = 1 << 0
	modReadonly    uint32 = 1 << 1
	modDefaultLib  uint32 = 1 << 2
)

// Legend returns the semantic token legend the server advertises.
func Legend() protocol.SemanticTokensLegend {
	return protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: tokenModifiers}
}

// SemanticTokens colours the mini-languages the Markdown around them does
// not know: frontmatter keys, step header numbers, step keys, tools, the
// JSON arguments with their `{{holes}}`, assert and bind expressions and
// effects.
func SemanticTokens(doc *Document) *protocol.SemanticTokens {
	t := &tokenizer{m: doc.Mapper}
	skill := doc.Skill()
	if fm := skill.Frontmatter; fm != nil {
		for _, e := range fm.Entries {
			t.add(e.KeyRange, tokProperty, 0)
			for _, it := range e.Items {
				t.add(it.KeyRange, tokProperty, 0)
			}
		}
	}
	for _, st := range skill.Steps {
		t.step(st)
	}
	return &protocol.SemanticTokens{Data: t.encode()}
}

// token is one coloured span of a single line, in tree offsets.
type token struct {
	start, end int
	typ, mods  uint32
}

type tokenizer struct {
	m    *Mapper
	toks []token
}

func (t *tokenizer) add(r ast.Range, typ, mods uint32) {
	t.span(int(r.Start.Offset), int(r.End.Offset), typ, mods)
}

func (t *tokenizer) span(start, end int, typ, mods uint32) {
	if end > start {
		t.toks = append(t.toks, token{start, end, typ, mods})
	}
}

func (t *tokenizer) step(st *ast.Step) {
	t.add(st.NumberRange, tokNumber, 0)
	for _, f := range st.Fields() {
		t.add(f.KeyRange, tokProperty, 0)
	}
	if a := st.Action; a != nil {
		t.add(a.ToolRange, tokFunction, 0)
		t.value(a.Args)
	}
	for _, a := range st.Asserts {
		t.assert(a.Expr)
	}
	for _, b := range st.Binds {
		t.bind(b.Expr)
	}
	if e := st.Effect; e != nil && e.Value.Valid() {
		t.add(e.ValueRange, tokEnumMember, 0)
	}
}

// value colours a JSON value; a string is cut around its holes.
func (t *tokenizer) value(v ast.Value) {
	ast.Walk(v, func(v ast.Value) bool {
		switch v := v.(type) {
		case *ast.Object:
			for _, m := range v.Members {
				t.add(m.KeyRange, tokProperty, 0)
			}
		case *ast.String:
			at := v.Range.Start.Offset
			for _, h := range v.Holes {
				t.span(int(at), int(h.Range.Start.Offset), tokString, 0)
				mods := uint32(0)
				if h.Kind != ast.HoleVar {
					mods = modReadonly | modDefaultLib
				}
				t.add(h.Range, tokVariable, mods)
				at = h.Range.End.Offset
			}
			t.span(int(at), int(v.Range.End.Offset), tokString, 0)
		case *ast.Number:
			t.add(v.Range, tokNumber, 0)
		case *ast.Bool, *ast.Null:
			t.add(v.Span(), tokKeyword, 0)
		}
		return true
	})
}

// path colours `json` as a keyword and each segment as a property.
func (t *tokenizer) path(p ast.Path) {
	t.span(int(p.Range.Start.Offset), int(p.Range.Start.Offset)+len("json"), tokKeyword, 0)
	for _, e := range p.Elements {
		t.add(e.Range, tokProperty, 0)
	}
}

func (t *tokenizer) assert(a ast.Assert) {
	first := len(t.toks)
	if p := ast.AssertPath(a); p != nil {
		t.path(*p)
	}
	switch a := a.(type) {
	case *ast.StatusAssert:
		t.add(a.OpRange, tokOperator, 0)
		t.add(a.CodeRange, tokNumber, 0)
	case *ast.BodyContainsAssert:
		t.span(int(a.TextRange.Start.Offset)-1, int(a.TextRange.End.Offset)+1, tokString, 0)
	case *ast.JSONIsAssert:
		t.add(a.TypeRange, tokType, 0)
	case *ast.JSONMatchesAssert:
		t.span(int(a.PatternRange.Start.Offset)-1, int(a.PatternRange.End.Offset)+1, tokRegexp, 0)
	case *ast.JSONLengthAssert:
		t.add(a.OpRange, tokOperator, 0)
		t.add(a.LenRange, tokNumber, 0)
	case *ast.JSONCompareAssert:
		t.add(a.OpRange, tokOperator, 0)
		t.value(a.Value)
	case *ast.SelectionAssert:
		t.selection(a.Sel)
		switch a.Kind {
		case ast.SelCompare:
			t.add(a.OpRange, tokOperator, 0)
			t.value(a.Value)
		case ast.SelIs:
			t.add(a.TypeRange, tokType, 0)
		case ast.SelMatches:
			t.span(int(a.PatternRange.Start.Offset)-1, int(a.PatternRange.End.Offset)+1, tokRegexp, 0)
		}
	}
	t.keywords(a.Span(), first)
}

// selection colours a selection: the pick as a function, the source's
// path or regex, each condition's key, operator and value, the ordering
// key and name, the separator and the trailing path; the keywords
// (where, and, by, as, sep, lines, not, contains, matches) are left to
// keywords.
func (t *tokenizer) selection(s *ast.Selection) {
	t.add(s.PickRange, tokFunction, modDefaultLib)
	if s.Source.Kind == ast.SourceJSON {
		t.path(s.Source.Path)
	} else if s.Source.Pattern != "" {
		t.span(int(s.Source.PatternRange.Start.Offset)-1, int(s.Source.PatternRange.End.Offset)+1, tokRegexp, 0)
	}
	for _, c := range s.Where {
		t.key(c.Key)
		switch c.Op {
		case ast.CondMatches:
			t.span(int(c.PatternRange.Start.Offset)-1, int(c.PatternRange.End.Offset)+1, tokRegexp, 0)
		case ast.CondContains, ast.CondNotContains:
			t.value(c.Value)
		default:
			t.add(c.OpRange, tokOperator, 0)
			t.value(c.Value)
		}
	}
	if s.HasBy {
		t.key(s.By)
		if s.Order != ast.OrderNone {
			t.add(s.OrderRange, tokEnumMember, 0)
		}
	}
	if s.HasSep {
		t.add(s.SepRange, tokString, 0)
	}
	t.key(s.Field)
}

// key colours the segments of a key read in each element; `it`, the
// element itself, is a keyword.
func (t *tokenizer) key(p ast.Path) {
	if ast.IsIt(p) {
		t.add(p.Elements[0].Range, tokKeyword, 0)
		return
	}
	for _, e := range p.Elements {
		t.add(e.Range, tokProperty, 0)
	}
}

func (t *tokenizer) bind(b ast.Bind) {
	first := len(t.toks)
	t.add(b.BoundNameRange(), tokVariable, modDeclaration)
	switch b := b.(type) {
	case *ast.JSONBind:
		t.path(b.Path)
	case *ast.BodyMatchBind:
		t.span(int(b.PatternRange.Start.Offset)-1, int(b.PatternRange.End.Offset)+1, tokRegexp, 0)
	case *ast.SelectionBind:
		t.selection(b.Sel)
	}
	t.keywords(b.Span(), first)
}

// keywords colours the words of an expression that no other token covers
// (status, body, not, contains, is, matches, length, match) as keywords and
// the `=` of a bind as an operator. The expression's other tokens are
// those added since index first.
func (t *tokenizer) keywords(r ast.Range, first int) {
	text := t.m.Slice(r)
	base := int(r.Start.Offset)
	covered := make([]bool, len(text))
	for _, tk := range t.toks[first:] {
		for i := max(tk.start-base, 0); i < min(tk.end-base, len(text)); i++ {
			covered[i] = true
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case covered[i]:
			i++
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(text) && text[j] >= 'a' && text[j] <= 'z' && !covered[j] {
				j++
			}
			t.span(base+i, base+j, tokKeyword, 0)
			i = j
		case c == '=':
			t.span(base+i, base+i+1, tokOperator, 0)
			i++
		default:
			i++
		}
	}
}

// encode sorts the tokens and writes them in the protocol's relative
// form: line delta, start delta, length (in UTF-16 units), type, modifiers.
func (t *tokenizer) encode() []uint32 {
	sort.Slice(t.toks, func(i, j int) bool { return t.toks[i].start < t.toks[j].start })
	data := make([]uint32, 0, 5*len(t.toks))
	var line, char uint32
	for _, tk := range t.toks {
		s, e := t.m.Position(tk.start), t.m.Position(tk.end)
		if e.Line != s.Line || e.Character <= s.Character {
			continue
		}
		if s.Line != line {
			char = 0
		}
		data = append(data, s.Line-line, s.Character-char, e.Character-s.Character, tk.typ, tk.mods)
		line, char = s.Line, s.Character
	}
	return data
}
