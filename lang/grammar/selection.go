package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

// Selections (SPEC.md §5.1): an assert that starts with a pick and `(`,
// or a bind whose right side does, is a selection form. Before selections
// both were rejections, so no file that parsed before reads differently.

// selMode tokenizes a selection. Unlike exprMode, whose regex and quoted
// text run to the last delimiter of the line, a selection holds several
// regexes and strings, so each ends at its own closing delimiter: a regex
// at the first unescaped `/` outside a `[...]` class, a string at the
// first unescaped `"` (a JSON string). A number is read only right after
// a comparison operator; elsewhere digits are a key's word (`by 2`).
func selMode(s *scanner) {
	for s.skipSpace() {
		c := s.src[s.i]
		afterOp := len(s.toks) > 0 && s.toks[len(s.toks)-1].Type == tOp
		switch {
		case afterOp && (c == '-' || c >= '0' && c <= '9'):
			j := s.i + 1
			for j < len(s.src) && isNumberByte(s.src[j]) {
				j++
			}
			s.emit(tNumber, s.i, j)
		case words.IsIdentByte(c):
			s.emit(tWord, s.i, s.word(0))
		case c == '.':
			s.emit(tDot, s.i, s.i+1)
		case c == '(':
			s.emit(tLParen, s.i, s.i+1)
		case c == ')':
			s.emit(tRParen, s.i, s.i+1)
		case c == '"':
			s.jsonString()
		case c == '/':
			s.regexLiteral()
		case c == '=' || c == '!' || c == '<' || c == '>':
			s.operator()
		default:
			s.emit(tJunk, s.i, s.i+1)
		}
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// jsonString emits a string token from the opening quote to the first
// unescaped quote; without one the rest of the line is junk (one token:
// scanning again from each later byte would be quadratic).
func (s *scanner) jsonString() {
	for j := s.i + 1; j < len(s.src); j++ {
		switch s.src[j] {
		case '\\':
			j++
		case '"':
			s.emit(tString, s.i, j+1)
			return
		}
	}
	s.emit(tJunk, s.i, len(s.src))
}

// regexLiteral emits a regex token from the opening slash to the first
// unescaped slash outside a character class, with any letters right after
// it (flags, refused when the selection is read, with a clear message);
// without a closing slash the rest of the line is junk.
func (s *scanner) regexLiteral() {
	class := false
	for j := s.i + 1; j < len(s.src); j++ {
		switch s.src[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if class {
				continue
			}
			k := j + 1
			for k < len(s.src) && (s.src[k] >= 'a' && s.src[k] <= 'z' || s.src[k] >= 'A' && s.src[k] <= 'Z') {
				k++
			}
			s.emit(tRegex, s.i, k)
			return
		}
	}
	s.emit(tJunk, s.i, len(s.src))
}

// selKey is a key read in each element: `name`, `meta.created`, `2`, `it`.
type selKey struct {
	Head lexer.Token   `parser:"@Word"`
	Segs []pathSegment `parser:"@@*"`
}

// selCond is one condition of a `where` clause.
type selCond struct {
	Key      selKey      `parser:"@@"`
	Op       lexer.Token `parser:"( @Op"`
	Value    lexer.Token `parser:"  @(String | Number | 'true' | 'false' | 'null')"`
	Matches  lexer.Token `parser:"| @'matches'"`
	Regex    lexer.Token `parser:"  @Regex"`
	Not      lexer.Token `parser:"| @'not'?"`
	Contains lexer.Token `parser:"  @'contains'"`
	Text     lexer.Token `parser:"  @String )"`
}

// selectionExpr is `pick ( source [where …] [by … [as …]] [sep "…"] ) [.path]`.
// The pick, the source's keyword and the ordering are any word here;
// convertSelection refuses the unknown ones with a suggestion.
type selectionExpr struct {
	Pick    lexer.Token   `parser:"@Word LParen"`
	Source  lexer.Token   `parser:"@Word"`
	SrcSegs []pathSegment `parser:"@@*"`
	Regex   lexer.Token   `parser:"@Regex?"`
	Where   []*selCond    `parser:"( 'where' @@ ( 'and' @@ )* )?"`
	ByKw    lexer.Token   `parser:"( @'by'"`
	By      *selKey       `parser:"  @@"`
	Order   lexer.Token   `parser:"  ( 'as' @Word )? )?"`
	SepKw   lexer.Token   `parser:"( @'sep'"`
	Sep     lexer.Token   `parser:"  @String )?"`
	Close   lexer.Token   `parser:"@RParen"`
	Field   []pathSegment `parser:"@@*"`
}

// selAssertExpr is `<selection> <op> <scalar>`, `<selection> is <type>`
// or `<selection> matches /<regex>/`.
type selAssertExpr struct {
	Sel     selectionExpr `parser:"@@"`
	Op      lexer.Token   `parser:"( @Op"`
	Value   lexer.Token   `parser:"  @(String | Number | 'true' | 'false' | 'null')"`
	Is      lexer.Token   `parser:"| 'is' @Word"`
	Matches lexer.Token   `parser:"| 'matches' @Regex )"`
}

// selBindExpr is `<name> = <selection>`.
type selBindExpr struct {
	Name lexer.Token   `parser:"@Word Assign"`
	Sel  selectionExpr `parser:"@@"`
}

// Built on first use (see assertParser).
var (
	selAssertParser = sync.OnceValue(func() *participle.Parser[selAssertExpr] {
		return participle.MustBuild[selAssertExpr](participle.Lexer(miniLexer{scan: selMode, limit: maxSelTokens}), participle.UseLookahead(1))
	})
	selBindParser = sync.OnceValue(func() *participle.Parser[selBindExpr] {
		return participle.MustBuild[selBindExpr](participle.Lexer(miniLexer{scan: selMode, limit: maxSelTokens}), participle.UseLookahead(1))
	})
)

// Picks lists the picks' names in SPEC.md's order.
var Picks = func() []string {
	out := make([]string, len(ast.Picks))
	for i, p := range ast.Picks {
		out[i] = string(p)
	}
	return out
}()

// Orderings lists the names written after `as`, in SPEC.md's order.
var Orderings = func() []string {
	out := make([]string, len(ast.Orderings))
	for i, o := range ast.Orderings {
		out[i] = string(o)
	}
	return out
}()

func validPick(s string) bool {
	for _, p := range ast.Picks {
		if string(p) == s {
			return true
		}
	}
	return false
}

func validOrdering(o ast.Ordering) bool {
	for _, x := range ast.Orderings {
		if x == o {
			return true
		}
	}
	return false
}

// selectionStart reports whether src, from byte i on, opens a selection:
// a word, optional blanks, then `(`. Any word counts, so a misspelt pick
// gets a suggestion instead of the generic rejection.
func selectionStart(src string, i int) bool {
	j := i
	for j < len(src) && words.IsIdentByte(src[j]) {
		j++
	}
	if j == i || src[i] >= '0' && src[i] <= '9' {
		return false
	}
	for j < len(src) && isBlank(src[j]) {
		j++
	}
	return j < len(src) && src[j] == '('
}

// bindSelectionStart reports whether a bind's right side opens a
// selection.
func bindSelectionStart(src string) bool {
	eq := strings.IndexByte(src, '=')
	if eq < 0 {
		return false
	}
	j := eq + 1
	for j < len(src) && isBlank(src[j]) {
		j++
	}
	return selectionStart(src, j)
}

// selAssert parses a selection assert once per distinct text of a file
// (the participle result is only read when converting it).
func (c *exprCache) selAssert(src string) (*selAssertExpr, error) {
	return cached(&c.selAsserts, src, func(src string) (*selAssertExpr, error) {
		return selAssertParser().ParseString("", src)
	})
}

// selBind parses a selection bind once per distinct text of a file.
func (c *exprCache) selBind(src string) (*selBindExpr, error) {
	return cached(&c.selBinds, src, func(src string) (*selBindExpr, error) {
		return selBindParser().ParseString("", src)
	})
}

// selCtx carries what converting one selection needs.
type selCtx struct {
	c    *exprCache
	src  string
	org  origin
	bind bool // a bind's selection: regex errors are invalid_bind_regex
}

func (x *selCtx) tokRange(t lexer.Token) ast.Range {
	return x.org.span(t.Pos.Offset, t.Pos.Offset+len(t.Value))
}

func (x *selCtx) fail(at, end int, format string, args ...any) *exprError {
	return &exprError{code: CodeSelection, msg: fmt.Sprintf(msgSelection, fmt.Sprintf(format, args...)), at: at, end: end}
}

func (x *selCtx) failTok(t lexer.Token, format string, args ...any) *exprError {
	return x.fail(t.Pos.Offset, t.Pos.Offset+len(t.Value), format, args...)
}

// syntaxAt turns participle's error into the form's rejection, at the
// token where reading stopped, with the grammar's names for tokens put in
// the words SPEC.md uses.
func syntaxAt(e *exprError, err error, src string) *exprError {
	if pe, ok := err.(participle.Error); ok {
		if at := pe.Position().Offset; at > 0 && at < len(src) {
			e.at = at
		}
	}
	e.detail = selTokenNames.Replace(e.detail)
	if e.at < len(src) && (src[e.at] == '"' || src[e.at] == '/') {
		// An unclosed string or regex lexes as one junk token: say so.
		t := scanner{src: src, i: e.at, limit: maxSelTokens}
		if src[e.at] == '"' {
			t.jsonString()
		} else {
			t.regexLiteral()
		}
		if len(t.toks) == 1 && t.toks[0].Type == tJunk {
			what := "string"
			if src[e.at] == '/' {
				what = "regex"
			}
			e.detail = fmt.Sprintf("the %s that starts here is not closed", what)
		}
	}
	return e
}

// selTokenNames renames participle's token and rule names in a selection's
// syntax error.
var selTokenNames = strings.NewReplacer(
	`unexpected token "<EOF>"`, "the expression ends too early", "<rparen>", "')'", "<lparen>", "'('", "PathSegment*", "'.<segment>'", "PathSegment", "'.<segment>'",
	"<string>", "a JSON string", "<number>", "a number", "<regex>", "/<regex>/", "<op>", "an operator",
	"<word>", "a word", "<EOF>", "the end", "SelKey", "a key", "SelCond", "a condition",
)

func (c *exprCache) parseSelectionAssert(src string, org origin) (ast.Assert, *exprError) {
	if e := checkSize(src, false); e != nil {
		return nil, e
	}
	g, err := c.selAssert(src)
	if err != nil {
		if e := pickError(src, 0); e != nil {
			return nil, e
		}
		return nil, syntaxAt(unknownAssert(src, err), err, src)
	}
	x := &selCtx{c: c, src: src, org: org}
	sel, e := x.selection(&g.Sel)
	if e != nil {
		return nil, e
	}
	a := &ast.SelectionAssert{Range: org.span(0, len(src)), Sel: sel}
	switch {
	case g.Op.Value != "":
		a.Kind, a.Op, a.OpRange = ast.SelCompare, ast.Op(g.Op.Value), x.tokRange(g.Op)
		v, e := x.scalar(g.Value, "the right-hand side")
		if e != nil {
			return nil, e
		}
		a.Value = v
	case g.Is.Value != "":
		if !isTypeName(g.Is.Value) {
			names := make([]string, len(TypeNames))
			for i, n := range TypeNames {
				names[i] = string(n)
			}
			e := x.failTok(g.Is, "unknown type %q after is — one of %s", g.Is.Value, strings.Join(names, ", "))
			if s, ok := Suggest(g.Is.Value, names); ok {
				e.detail, e.fix = fmt.Sprintf("did you mean %q?", s), s
			}
			return nil, e
		}
		a.Kind, a.Type, a.TypeRange = ast.SelIs, ast.TypeName(g.Is.Value), x.tokRange(g.Is)
	default:
		pat, rng, e := x.regex(g.Matches)
		if e != nil {
			return nil, e
		}
		a.Kind, a.Pattern, a.PatternRange = ast.SelMatches, pat, rng
	}
	return a, nil
}

func (c *exprCache) parseSelectionBind(src string, org origin) (ast.Bind, *exprError) {
	if e := checkSize(src, true); e != nil {
		return nil, e
	}
	g, err := c.selBind(src)
	if err != nil {
		eq := strings.IndexByte(src, '=')
		j := eq + 1
		for j < len(src) && isBlank(src[j]) {
			j++
		}
		if e := pickError(src, j); e != nil {
			return nil, e
		}
		return nil, syntaxAt(unknownBind(src, err), err, src)
	}
	if !words.IsIdent(g.Name.Value) {
		return nil, notAName(src, g.Name.Value)
	}
	x := &selCtx{c: c, src: src, org: org, bind: true}
	sel, e := x.selection(&g.Sel)
	if e != nil {
		return nil, e
	}
	return &ast.SelectionBind{
		Range: org.span(0, len(src)), Name: g.Name.Value,
		NameRange: x.tokRange(g.Name), Sel: sel,
	}, nil
}

// pickError refuses an unknown pick at src[i:] even when the rest does
// not parse: the misspelt word is the likelier mistake.
func pickError(src string, i int) *exprError {
	j := i
	for j < len(src) && words.IsIdentByte(src[j]) {
		j++
	}
	if validPick(src[i:j]) {
		return nil
	}
	return unknownPick(src[i:j], i)
}

func unknownPick(word string, at int) *exprError {
	e := &exprError{code: CodeSelection, at: at, end: at + len(word),
		msg: fmt.Sprintf(msgSelection, fmt.Sprintf("unknown pick %q — a selection starts with one of %s", word, strings.Join(Picks, ", ")))}
	if s, ok := Suggest(word, Picks); ok {
		e.detail, e.fix = fmt.Sprintf("did you mean %q?", s), s
	}
	return e
}

// selection converts and checks a parsed selection.
func (x *selCtx) selection(g *selectionExpr) (*ast.Selection, *exprError) {
	pick := ast.Pick(g.Pick.Value)
	if !validPick(g.Pick.Value) {
		return nil, unknownPick(g.Pick.Value, g.Pick.Pos.Offset)
	}
	end := g.Close.Pos.Offset + 1
	if len(g.Field) > 0 {
		last := g.Field[len(g.Field)-1].Word
		end = last.Pos.Offset + len(last.Value)
	}
	s := &ast.Selection{Range: x.org.span(g.Pick.Pos.Offset, end), Pick: pick, PickRange: x.tokRange(g.Pick)}

	// The source.
	src := &s.Source
	srcEnd := g.Source.Pos.Offset + len(g.Source.Value)
	switch g.Source.Value {
	case "json":
		src.Kind = ast.SourceJSON
		if g.Regex.Value != "" {
			return nil, x.failTok(g.Regex, "a regex filters lines, not JSON: write lines /…/, or json.<path> where <key> matches /…/")
		}
		p, e := x.path(g.Source, g.SrcSegs, "the source path", "json.items")
		if e != nil {
			return nil, e
		}
		src.Path = p
		if n := len(g.SrcSegs); n > 0 {
			srcEnd = g.SrcSegs[n-1].Word.Pos.Offset + len(g.SrcSegs[n-1].Word.Value)
		}
	case "lines":
		src.Kind = ast.SourceLines
		if len(g.SrcSegs) > 0 {
			return nil, x.fail(g.SrcSegs[0].Dot.Pos.Offset, g.SrcSegs[len(g.SrcSegs)-1].Word.Pos.Offset+len(g.SrcSegs[len(g.SrcSegs)-1].Word.Value),
				"lines takes no path: the elements are the body's lines (lines /<regex>/ keeps those the regex matches)")
		}
		if g.Regex.Value != "" {
			pat, rng, e := x.regex(g.Regex)
			if e != nil {
				return nil, e
			}
			src.Pattern, src.PatternRange = pat, rng
			srcEnd = g.Regex.Pos.Offset + len(g.Regex.Value)
		}
	default:
		e := x.failTok(g.Source, "unknown source %q — a selection reads json, json.<path>, lines or lines /<regex>/", g.Source.Value)
		if s, ok := Suggest(g.Source.Value, []string{"json", "lines"}); ok {
			e.detail, e.fix = fmt.Sprintf("did you mean %q?", s), s
		}
		return nil, e
	}
	src.Range = x.org.span(g.Source.Pos.Offset, srcEnd)

	keys := x.keyChecker(s)

	// where
	if len(g.Where) > 0 {
		s.Where = make([]*ast.Condition, 0, len(g.Where))
	}
	for _, gc := range g.Where {
		key, e := x.key(&gc.Key, "a condition's key")
		if e != nil {
			return nil, e
		}
		if e := keys(key); e != nil {
			return nil, e
		}
		c := &ast.Condition{Key: key}
		var last lexer.Token
		switch {
		case gc.Op.Value != "":
			c.Op, c.OpRange = ast.CondOp(gc.Op.Value), x.tokRange(gc.Op)
			v, e := x.scalar(gc.Value, "a condition's value")
			if e != nil {
				return nil, e
			}
			c.Value, last = v, gc.Value
		case gc.Matches.Value != "":
			c.Op, c.OpRange = ast.CondMatches, x.tokRange(gc.Matches)
			pat, rng, e := x.regex(gc.Regex)
			if e != nil {
				return nil, e
			}
			c.Pattern, c.PatternRange, last = pat, rng, gc.Regex
		default:
			c.Op, c.OpRange = ast.CondContains, x.tokRange(gc.Contains)
			if gc.Not.Value != "" {
				c.Op = ast.CondNotContains
				c.OpRange = x.org.span(gc.Not.Pos.Offset, gc.Contains.Pos.Offset+len(gc.Contains.Value))
			}
			v, e := x.scalar(gc.Text, "the text of contains")
			if e != nil {
				return nil, e
			}
			c.Value, last = v, gc.Text
		}
		c.Range = x.org.span(gc.Key.Head.Pos.Offset, last.Pos.Offset+len(last.Value))
		s.Where = append(s.Where, c)
	}

	// by … as …
	if g.By != nil {
		key, e := x.key(g.By, "the key of by")
		if e != nil {
			return nil, e
		}
		if e := keys(key); e != nil {
			return nil, e
		}
		s.By, s.HasBy = key, true
		if g.Order.Value != "" {
			o := ast.Ordering(strings.ToLower(g.Order.Value))
			if !validOrdering(o) {
				e := x.failTok(g.Order, "unknown ordering %q after as — one of %s", g.Order.Value, strings.Join(Orderings, ", "))
				if s, ok := Suggest(g.Order.Value, Orderings); ok {
					e.detail, e.fix = fmt.Sprintf("did you mean %q?", s), s
				}
				return nil, e
			}
			s.Order, s.OrderRange = o, x.tokRange(g.Order)
		}
	}

	// sep
	if g.SepKw.Value != "" {
		if pick != ast.PickJoin {
			return nil, x.fail(g.SepKw.Pos.Offset, g.Sep.Pos.Offset+len(g.Sep.Value), "sep is join's separator; %s takes none", pick)
		}
		v, e := x.scalar(g.Sep, "the separator")
		if e != nil {
			return nil, e
		}
		str := v.(*ast.String)
		if len(str.Holes) > 0 {
			return nil, x.failTok(g.Sep, "the separator is literal text: it holds no {{…}} holes")
		}
		s.Sep, s.HasSep, s.SepRange = str.Value, true, x.tokRange(g.Sep)
	}

	// The trailing path.
	if len(g.Field) > 0 {
		first := g.Field[0].Dot
		if first.Pos.Offset != g.Close.Pos.Offset+1 {
			return nil, x.fail(g.Close.Pos.Offset, first.Pos.Offset+1, "the path after ')' follows it without blanks, like ).name")
		}
		if pick == ast.PickCount {
			return nil, x.fail(first.Pos.Offset, end, "count returns a number: it takes no path after ')'")
		}
		p, e := x.path(lexer.Token{}, g.Field, "the path after ')'", ").name")
		if e != nil {
			return nil, e
		}
		if e := keys(p); e != nil {
			return nil, e
		}
		s.Field = p
	}

	if (pick == ast.PickSum || pick == ast.PickJoin) && len(s.Field.Elements) == 0 && src.Kind == ast.SourceLines && src.Pattern != "" {
		return nil, x.fail(g.Pick.Pos.Offset, end, "%s over lines /…/ needs the capture to %s after ')', like ).1: each line is an object of its captures", pick, map[ast.Pick]string{ast.PickSum: "add up", ast.PickJoin: "join"}[pick])
	}
	if (pick == ast.PickMax || pick == ast.PickMin) && !s.HasBy && src.Kind == ast.SourceLines && src.Pattern != "" {
		return nil, x.failTok(g.Pick, "%s over lines /…/ needs by <capture>: each line is an object of its captures (by 0 orders by the whole match)", pick)
	}
	return s, nil
}

// path converts the segments of a source or trailing path. head is the
// `json` keyword of a source path; it is zero for a trailing path, whose
// range starts at its first dot. The segments are written without blanks.
func (x *selCtx) path(head lexer.Token, segs []pathSegment, what, example string) (ast.Path, *exprError) {
	var p ast.Path
	start := 0
	next := -1
	if head.Value != "" {
		start = head.Pos.Offset
		next = start + len(head.Value)
	} else if len(segs) > 0 {
		start = segs[0].Dot.Pos.Offset
		next = start
	}
	if len(segs) > maxPathSegments {
		t := segs[maxPathSegments].Word
		last := segs[len(segs)-1].Word
		return p, &exprError{code: CodeJSONPathTooLong, msg: fmt.Sprintf(msgPathTooLong, strconv.Itoa(len(segs))), at: t.Pos.Offset, end: last.Pos.Offset + len(last.Value)}
	}
	if len(segs) > 0 {
		p.Elements = make([]ast.PathElement, 0, len(segs))
	}
	for _, seg := range segs {
		t := seg.Word
		if seg.Dot.Pos.Offset != next || t.Pos.Offset != next+1 {
			return p, x.fail(seg.Dot.Pos.Offset, t.Pos.Offset+len(t.Value), "%s is written without blanks, like %s", what, example)
		}
		next = t.Pos.Offset + len(t.Value)
		p.Elements = append(p.Elements, pathElement(t, x.org))
	}
	if next < 0 {
		next = start
	}
	p.Range = x.org.span(start, next)
	return p, nil
}

// key converts a key read in each element.
func (x *selCtx) key(g *selKey, what string) (ast.Path, *exprError) {
	if len(g.Segs)+1 > maxPathSegments {
		t := g.Segs[maxPathSegments-1].Word
		last := g.Segs[len(g.Segs)-1].Word
		return ast.Path{}, &exprError{code: CodeJSONPathTooLong, msg: fmt.Sprintf(msgPathTooLong, strconv.Itoa(len(g.Segs)+1)), at: t.Pos.Offset, end: last.Pos.Offset + len(last.Value)}
	}
	p := ast.Path{Elements: make([]ast.PathElement, 0, 1+len(g.Segs))}
	p.Elements = append(p.Elements, pathElement(g.Head, x.org))
	next := g.Head.Pos.Offset + len(g.Head.Value)
	for _, seg := range g.Segs {
		t := seg.Word
		if seg.Dot.Pos.Offset != next || t.Pos.Offset != next+1 {
			return p, x.fail(seg.Dot.Pos.Offset, t.Pos.Offset+len(t.Value), "%s is written without blanks, like meta.created", what)
		}
		next = t.Pos.Offset + len(t.Value)
		p.Elements = append(p.Elements, pathElement(t, x.org))
	}
	p.Range = x.org.span(g.Head.Pos.Offset, next)
	return p, nil
}

func pathElement(t lexer.Token, org origin) ast.PathElement {
	idx := -1
	if n, ok := parseUint(t.Value); ok {
		idx = n
	}
	return ast.PathElement{Name: t.Value, Index: idx, Range: org.span(t.Pos.Offset, t.Pos.Offset+len(t.Value))}
}

// keyChecker returns the check of the keys read in each element of s's
// source: over plain lines an element is a string, so the only key is
// `it` and there is no trailing path; over lines /<regex>/ it is an
// object of captures, so a key names a capture the regex has (`0`, a
// group's number or name), one segment deep.
func (x *selCtx) keyChecker(s *ast.Selection) func(ast.Path) *exprError {
	if s.Source.Kind != ast.SourceLines {
		return func(ast.Path) *exprError { return nil }
	}
	if s.Source.Pattern == "" {
		return func(p ast.Path) *exprError {
			if ast.IsIt(p) {
				return nil
			}
			at, end := x.rangeOffsets(p.Range)
			return x.fail(at, end, "plain lines are strings: read each one as it, or use lines /<regex>/ to read captures")
		}
	}
	re, _ := jsregex.Compile(s.Source.Pattern) // compiled already by x.regex
	groups := len(re.GetGroupNumbers())
	var names []string
	for _, n := range re.GetGroupNames() {
		if _, digits := parseUint(n); n != "" && !digits {
			names = append(names, n)
		}
	}
	return func(p ast.Path) *exprError {
		at, end := x.rangeOffsets(p.Range)
		if ast.IsIt(p) {
			return x.fail(at, end, "over lines /…/ each element is an object of its captures: read the whole match as 0, a group by its number or name")
		}
		if len(p.Elements) > 1 {
			return x.fail(at, end, "a capture is a string: %q has no parts (a key over lines /…/ is one capture's number or name)", p.Elements[0].Name)
		}
		k := p.Elements[0]
		if k.Index >= 0 {
			if k.Index < groups {
				return nil
			}
			return x.fail(at, end, "the regex of lines has no group %d: it has %d (0 is the whole match)", k.Index, groups-1)
		}
		for _, n := range names {
			if n == k.Name {
				return nil
			}
		}
		if len(names) == 0 {
			return x.fail(at, end, "the regex of lines has no group named %q: it has no named groups (use a number, 0 for the whole match)", k.Name)
		}
		e := x.fail(at, end, "the regex of lines has no group named %q: its names are %s", k.Name, strings.Join(names, ", "))
		if s, ok := Suggest(k.Name, names); ok {
			e.detail, e.fix = fmt.Sprintf("did you mean %q?", s), s
		}
		return e
	}
}

// rangeOffsets returns a range's byte offsets within the fragment.
func (x *selCtx) rangeOffsets(r ast.Range) (int, int) {
	return int(r.Start.Offset - x.org.Offset), int(r.End.Offset - x.org.Offset)
}

// regex checks a regex token: no flags, and a pattern that compiles.
func (x *selCtx) regex(t lexer.Token) (string, ast.Range, *exprError) {
	v := t.Value
	close := strings.LastIndexByte(v, '/')
	if close < len(v)-1 {
		return "", ast.Range{}, x.fail(t.Pos.Offset+close+1, t.Pos.Offset+len(v),
			"regex flags are not supported (/%s/%s): skills' regexes take none (SPEC §7); spell the cases out instead, like [Ss]tale", v[1:close], v[close+1:])
	}
	pat := v[1:close]
	if _, err := jsregex.Compile(pat); err != nil {
		code, msg := CodeAssertRegex, msgAssertRegex
		if x.bind {
			code, msg = CodeBindRegex, msgBindRegex
		}
		return "", ast.Range{}, &exprError{code: code, msg: fmt.Sprintf(msg, err), at: t.Pos.Offset, end: t.Pos.Offset + len(v)}
	}
	return pat, x.org.span(t.Pos.Offset+1, t.Pos.Offset+close), nil
}

// scalar reads a JSON scalar token; a string's template holes are found
// as in action arguments.
func (x *selCtx) scalar(t lexer.Token, what string) (ast.Value, *exprError) {
	v, jerr := parseJSON(t.Value, x.org.from(t.Pos.Offset), x.c)
	if jerr != nil {
		return nil, x.failTok(t, "%s is not a JSON scalar: %s", what, jerr.msg)
	}
	return v, nil
}
