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

// Form names one form of a mini-language and shows its syntax. SPEC.md's
// assert and bind tables must list exactly these.
type Form struct {
	Syntax string
	Type   string
}

// AssertForms lists the assert language's forms.
var AssertForms = []Form{
	{"status == <int>", "StatusAssert"},
	{"status != <int>", "StatusAssert"},
	{`body contains "<text>"`, "BodyContainsAssert"},
	{`body not contains "<text>"`, "BodyContainsAssert"},
	{"json.<path> is array|set|number|string|boolean|null", "JSONIsAssert"},
	{"json.<path> matches /<regex>/", "JSONMatchesAssert"},
	{"json.<path> length >|<|>=|<= <int>", "JSONLengthAssert"},
	{"json.<path> ==|!= <json-scalar>", "JSONCompareAssert"},
	{"json.<path> >|<|>=|<= <json-scalar>", "JSONCompareAssert"},
	{"<selection> ==|!=|>|<|>=|<= <json-scalar>", "SelectionAssert"},
	{"<selection> is array|set|number|string|boolean|null", "SelectionAssert"},
	{"<selection> matches /<regex>/", "SelectionAssert"},
}

// BindForms lists the bind language's forms.
var BindForms = []Form{
	{"<name> = json.<path>", "JSONBind"},
	{"<name> = body match /<regex>/", "BodyMatchBind"},
	{"<name> = <selection>", "SelectionBind"},
}

// TypeNames are the right-hand sides of the `is` form.
var TypeNames = []ast.TypeName{ast.TypeArray, ast.TypeSet, ast.TypeNumber, ast.TypeString, ast.TypeBoolean, ast.TypeNull}

type jsonPath struct {
	JSON lexer.Token   `parser:"@'json'"`
	Segs []pathSegment `parser:"@@+"`
}

type pathSegment struct {
	Dot  lexer.Token `parser:"@Dot"`
	Word lexer.Token `parser:"@Word"`
}

type assertExpr struct {
	Status *statusCheck `parser:"@@"`
	Body   *bodyCheck   `parser:"| @@"`
	JSON   *jsonCheck   `parser:"| @@"`
}

type statusCheck struct {
	Kw   lexer.Token `parser:"@'status'"`
	Op   lexer.Token `parser:"@('==' | '!=')"`
	Code lexer.Token `parser:"@Rest"`
}

type bodyCheck struct {
	Kw       lexer.Token `parser:"@'body'"`
	Not      lexer.Token `parser:"@'not'?"`
	Contains lexer.Token `parser:"@'contains'"`
	Text     lexer.Token `parser:"@Quoted"`
}

type jsonCheck struct {
	Path    jsonPath     `parser:"@@"`
	Is      *typeCheck   `parser:"( @@"`
	Matches lexer.Token  `parser:"| 'matches' @Regex"`
	Length  *lengthCheck `parser:"| @@"`
	Op      lexer.Token  `parser:"| @Op"`
	Value   lexer.Token  `parser:"@Rest )"`
}

type typeCheck struct {
	Kw   lexer.Token `parser:"'is'"`
	Type lexer.Token `parser:"@('array' | 'set' | 'number' | 'string' | 'boolean' | 'null')"`
}

type lengthCheck struct {
	Kw lexer.Token `parser:"'length'"`
	Op lexer.Token `parser:"@('>=' | '<=' | '>' | '<')"`
	N  lexer.Token `parser:"@Rest"`
}

type bindExpr struct {
	Name  lexer.Token `parser:"@Word Assign"`
	Path  *jsonPath   `parser:"( @@"`
	Regex lexer.Token `parser:"| 'body' 'match' @Regex )"`
}

// The participle parsers are built on first use, not at package
// initialisation: building them is a good part of start-up, and most
// commands (reelier --version, mcp, push…) never parse a skill.
var (
	assertParser = sync.OnceValue(func() *participle.Parser[assertExpr] {
		return participle.MustBuild[assertExpr](participle.Lexer(miniLexer{scan: exprMode}), participle.UseLookahead(2))
	})
	bindParser = sync.OnceValue(func() *participle.Parser[bindExpr] {
		return participle.MustBuild[bindExpr](participle.Lexer(miniLexer{scan: exprMode}), participle.UseLookahead(2))
	})
)

// exprCache remembers the participle result for each distinct expression
// text of one file; real skills repeat `status == 200` in most steps.
type exprCache struct {
	asserts map[string]*assertExpr
	binds   map[string]*bindExpr
	// selAsserts and selBinds keep the participle results of selections.
	selAsserts map[string]*selAssertExpr
	selBinds   map[string]*selBindExpr
	holes      map[string]*ast.Hole
	bullets    map[string]*stepBullet
	// toks is the fast paths' token buffer (see lex).
	toks []lexer.Token
	// scratch, with chunked set, holds fastBind's and fastAction's
	// results.
	scratch *fastScratch
	// found collects a string's holes before they are copied out.
	found []*ast.Hole
	// exprSlabs is set with chunked; a cache for one expression (ParseArgs,
	// ParseAssert) stays small without it.
	*exprSlabs
	// With chunked set (a whole document's parse), JSON values, holes and
	// paths come from slabs: one allocation for many nodes (#20). With
	// reuse set too (Check), the slabs' nodes are handed out again for
	// each step (reset).
	chunked bool
	reuse   bool
}

// exprSlabs are a whole document's slabs (see exprCache.chunked).
type exprSlabs struct {
	strs     slab[ast.String]
	objs     slab[ast.Object]
	members  slab[ast.Member]
	memberPs slab[*ast.Member]
	elements slab[ast.Value]
	pathEls  slab[ast.PathElement]
	arrays   slab[ast.Array]
	numbers  slab[ast.Number]
	holeVals slab[ast.Hole]
	holePs   slab[*ast.Hole]
}

// setChunked makes c hand out a whole document's nodes from slabs.
func (c *exprCache) setChunked() {
	c.chunked = true
	c.exprSlabs = new(exprSlabs)
	c.scratch = new(fastScratch)
}

const nodeChunk = 32

// setReuse makes c hand out its nodes again from each reset on.
func (c *exprCache) setReuse() {
	c.reuse = true
	c.strs.reuse, c.objs.reuse = true, true
	c.members.reuse, c.memberPs.reuse, c.elements.reuse, c.pathEls.reuse = true, true, true, true
	c.arrays.reuse, c.numbers.reuse, c.holeVals.reuse, c.holePs.reuse = true, true, true, true
}

// reset lets the nodes handed out since the last reset be handed out
// again; it does nothing unless reuse is set.
func (c *exprCache) reset() {
	c.strs.reset()
	c.objs.reset()
	c.members.reset()
	c.memberPs.reset()
	c.elements.reset()
	c.pathEls.reset()
	c.arrays.reset()
	c.numbers.reset()
	c.holeVals.reset()
	c.holePs.reset()
}

func (c *exprCache) newString() *ast.String {
	if c == nil || !c.chunked {
		return new(ast.String)
	}
	return c.strs.new()
}

func (c *exprCache) newObject() *ast.Object {
	if c == nil || !c.chunked {
		return new(ast.Object)
	}
	return c.objs.new()
}

func (c *exprCache) assert(src string) (*assertExpr, error) {
	return cached(&c.asserts, src, func(src string) (*assertExpr, error) {
		if g := c.fastAssert(src); g != nil {
			return g, nil
		}
		return assertParser().ParseString("", src)
	})
}

// bind parses a bind expression. Unlike asserts, binds seldom repeat in
// a skill (each names its own variable), so only participle's results,
// the slow ones, are kept for a repeat: the fast path's are built again.
func (c *exprCache) bind(src string) (*bindExpr, error) {
	if g := c.fastBind(src); g != nil {
		return g, nil
	}
	return cached(&c.binds, src, func(src string) (*bindExpr, error) {
		return bindParser().ParseString("", src)
	})
}

// cached is the parse of src kept in *m, which it fills on first use: a
// text is parsed once per file, and a failed parse is not kept.
func cached[T any](m *map[string]*T, src string, parse func(string) (*T, error)) (*T, error) {
	if g, ok := (*m)[src]; ok {
		return g, nil
	}
	g, err := parse(src)
	if err != nil {
		return nil, err
	}
	if *m == nil {
		*m = map[string]*T{}
	}
	(*m)[src] = g
	return g, nil
}

// exprError is a rejection of an expression at a byte offset within it.
type exprError struct {
	code, msg, detail string
	at, end           int
	// fix, when set, replaces bytes [at, end) as the suggested fix (the
	// nearest name of a "did you mean").
	fix string
}

// ParseAssert parses one assert expression that starts at base in its
// file. src must be a single line without surrounding blanks.
func ParseAssert(src string, base ast.Pos) (ast.Assert, *ast.Diagnostic) {
	org := fragment(base, src)
	if selectionStart(src, 0) {
		// A cache of its own: the selection path keeps a pointer to it,
		// and the other forms' stack-allocated cache must not follow.
		a, err := new(exprCache).parseSelectionAssert(src, org)
		return a, err.diagnostic(org)
	}
	var c exprCache
	a, err := c.parseAssert(src, org)
	return a, err.diagnostic(org)
}

// ParseBind parses one bind expression that starts at base in its file.
func ParseBind(src string, base ast.Pos) (ast.Bind, *ast.Diagnostic) {
	org := fragment(base, src)
	if bindSelectionStart(src) && !reservedBind(src) {
		b, err := new(exprCache).parseSelectionBind(src, org)
		return b, err.diagnostic(org)
	}
	var c exprCache
	b, err := c.parseBind(src, org)
	return b, err.diagnostic(org)
}

// parseAnyAssert parses an assert of any form, selections included.
func (c *exprCache) parseAnyAssert(src string, org origin) (ast.Assert, *exprError) {
	if selectionStart(src, 0) {
		return c.parseSelectionAssert(src, org)
	}
	return c.parseAssert(src, org)
}

// parseAnyBind parses a bind of any form, selections included.
func (c *exprCache) parseAnyBind(src string, org origin) (ast.Bind, *exprError) {
	if bindSelectionStart(src) && !reservedBind(src) {
		return c.parseSelectionBind(src, org)
	}
	return c.parseBind(src, org)
}

// reservedBind reports whether a bind defines a reserved name, which
// parseBind refuses whatever its right side.
func reservedBind(src string) bool {
	lhs, _, ok := strings.Cut(src, "=")
	return ok && IsReservedName(strings.TrimSpace(lhs))
}

func (e *exprError) diagnostic(org origin) *ast.Diagnostic {
	if e == nil {
		return nil
	}
	d := &ast.Diagnostic{Range: org.span(e.at, e.end), Code: e.code, Message: e.msg, Detail: e.detail}
	if e.fix != "" {
		d.Fixes = []ast.SuggestedFix{{
			Title: fmt.Sprintf("Change %q to %q", org.text[e.at:e.end], e.fix),
			Edits: []ast.TextEdit{{Range: d.Range, NewText: e.fix}},
		}}
	}
	return d
}

func unknownAssert(src string, err error) *exprError {
	e := &exprError{code: CodeUnknownAssert, msg: fmt.Sprintf(msgUnknownAssert, src), end: len(src)}
	if err != nil {
		e.detail = explain(err)
	}
	return e
}

// explain turns participle's error into a short hint without its position
// prefix (the diagnostic already carries the position).
func explain(err error) string {
	if pe, ok := err.(participle.Error); ok {
		return pe.Message()
	}
	return err.Error()
}

func (c *exprCache) parseAssert(src string, org origin) (ast.Assert, *exprError) {
	if e := checkSize(src, false); e != nil {
		return nil, e
	}
	g, err := c.assert(src)
	if err != nil {
		return nil, unknownAssert(src, err)
	}
	rng := org.span(0, len(src))
	tok := func(t lexer.Token) ast.Range { return org.span(t.Pos.Offset, t.Pos.Offset+len(t.Value)) }
	switch {
	case g.Status != nil:
		code, ok := parseUint(g.Status.Code.Value)
		if !ok {
			return nil, unknownAssert(src, fmt.Errorf("expected an integer status code after %s", g.Status.Op.Value))
		}
		return &ast.StatusAssert{Range: rng, Op: ast.Op(g.Status.Op.Value), OpRange: tok(g.Status.Op), Code: code, CodeRange: tok(g.Status.Code)}, nil
	case g.Body != nil:
		t := g.Body.Text
		if i := strings.IndexAny(t.Value, "\r\n"); i >= 0 {
			// One physical line per assert: a line break inside the text
			// could smuggle a second bullet into a rewritten file.
			shown := strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(src)
			e := unknownAssert(shown, fmt.Errorf("the text of body contains must not hold a carriage return or a line break"))
			e.at, e.end = t.Pos.Offset+i, len(src)
			return nil, e
		}
		return &ast.BodyContainsAssert{Range: rng, Negated: g.Body.Not.Value != "", Text: t.Value[1 : len(t.Value)-1], TextRange: org.span(t.Pos.Offset+1, t.Pos.Offset+len(t.Value)-1)}, nil
	}
	j := g.JSON
	path, ok := c.convertPath(j.Path, org)
	if !ok {
		return nil, unknownAssert(src, fmt.Errorf("a json path is written without spaces or empty segments, like json.items.0.id"))
	}
	switch {
	case j.Is != nil:
		return &ast.JSONIsAssert{Range: rng, Path: path, Type: ast.TypeName(j.Is.Type.Value), TypeRange: tok(j.Is.Type)}, nil
	case j.Matches.Value != "":
		pat := j.Matches.Value[1 : len(j.Matches.Value)-1]
		if _, err := jsregex.Compile(pat); err != nil {
			return nil, &exprError{code: CodeAssertRegex, msg: fmt.Sprintf(msgAssertRegex, err), at: j.Matches.Pos.Offset, end: len(src)}
		}
		return &ast.JSONMatchesAssert{Range: rng, Path: path, Pattern: pat, PatternRange: org.span(j.Matches.Pos.Offset+1, len(src)-1)}, nil
	case j.Length != nil:
		n, ok := parseUint(j.Length.N.Value)
		if !ok {
			return nil, unknownAssert(src, fmt.Errorf("expected an integer length after %s", j.Length.Op.Value))
		}
		return &ast.JSONLengthAssert{Range: rng, Path: path, Op: ast.Op(j.Length.Op.Value), OpRange: tok(j.Length.Op), Length: n, LenRange: tok(j.Length.N)}, nil
	}
	v, jerr := parseJSON(j.Value.Value, org.from(j.Value.Pos.Offset), nil)
	if jerr != nil {
		return nil, unknownAssert(src, fmt.Errorf("the right-hand side is not a JSON scalar: %s", jerr.msg))
	}
	switch v.(type) {
	case *ast.Object, *ast.Array:
		return nil, unknownAssert(src, fmt.Errorf("the right-hand side must be a JSON scalar (string, number, true, false or null)"))
	}
	return &ast.JSONCompareAssert{Range: rng, Path: path, Op: ast.Op(j.Op.Value), OpRange: tok(j.Op), Value: v}, nil
}

// unknownBind is the rejection of a bind that does not read, with what
// err says about it as the detail.
func unknownBind(src string, err error) *exprError {
	e := &exprError{code: CodeUnknownBind, msg: fmt.Sprintf(msgUnknownBind, src), end: len(src)}
	if err != nil {
		e.detail = explain(err)
	}
	return e
}

// notAName is the rejection of a bind whose name is not an identifier.
func notAName(src, name string) *exprError {
	return unknownBind(src, fmt.Errorf("%q is not a name: names start with a letter or '_' and go on with letters, digits or '_'", name))
}

func (c *exprCache) parseBind(src string, org origin) (ast.Bind, *exprError) {
	if lhs, _, ok := strings.Cut(src, "="); ok && IsReservedName(strings.TrimSpace(lhs)) {
		name := strings.TrimSpace(lhs)
		at := strings.Index(src, name)
		return nil, &exprError{code: CodeReservedBind, msg: fmt.Sprintf(msgReservedBind, name), at: at, end: at + len(name)}
	}
	if e := checkSize(src, true); e != nil {
		return nil, e
	}
	g, err := c.bind(src)
	if err != nil {
		return nil, unknownBind(src, err)
	}
	if !words.IsIdent(g.Name.Value) {
		return nil, notAName(src, g.Name.Value)
	}
	rng := org.span(0, len(src))
	nameRange := org.span(g.Name.Pos.Offset, g.Name.Pos.Offset+len(g.Name.Value))
	if g.Path != nil {
		path, ok := c.convertPath(*g.Path, org)
		if !ok {
			return nil, unknownBind(src, fmt.Errorf("a json path is written without spaces or empty segments, like json.items.0.id"))
		}
		return &ast.JSONBind{Range: rng, Name: g.Name.Value, NameRange: nameRange, Path: path}, nil
	}
	pat := g.Regex.Value[1 : len(g.Regex.Value)-1]
	if _, err := jsregex.Compile(pat); err != nil {
		return nil, &exprError{code: CodeBindRegex, msg: fmt.Sprintf(msgBindRegex, err), at: g.Regex.Pos.Offset, end: len(src)}
	}
	return &ast.BodyMatchBind{Range: rng, Name: g.Name.Value, NameRange: nameRange, Pattern: pat, PatternRange: org.span(g.Regex.Pos.Offset+1, len(src)-1)}, nil
}

// convertPath turns `json . a . 0` tokens into a typed path, refusing
// blanks between the tokens: a path is one word like json.items.0.id.
func (c *exprCache) convertPath(g jsonPath, org origin) (ast.Path, bool) {
	next := g.JSON.Pos.Offset + len(g.JSON.Value)
	var p ast.Path
	switch {
	case len(g.Segs) == 0:
	case c.chunked:
		p.Elements = c.pathEls.take(len(g.Segs))[:0]
	default:
		p.Elements = make([]ast.PathElement, 0, len(g.Segs))
	}
	for _, seg := range g.Segs {
		t := seg.Word
		if seg.Dot.Pos.Offset != next || t.Pos.Offset != next+1 {
			return p, false
		}
		next = t.Pos.Offset + len(t.Value)
		idx := -1
		if n, ok := parseUint(t.Value); ok {
			idx = n
		}
		p.Elements = append(p.Elements, ast.PathElement{Name: t.Value, Index: idx, Range: org.span(t.Pos.Offset, next)})
	}
	p.Range = org.span(g.JSON.Pos.Offset, next)
	return p, true
}

// parseUint accepts a run of ASCII digits that fits an int.
func parseUint(s string) (int, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
