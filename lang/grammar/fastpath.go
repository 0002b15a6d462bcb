package grammar

import "github.com/alecthomas/participle/v2/lexer"

// Fast paths in front of participle. Each recognises the common shapes of
// one mini-language from the same hand-written lexer's tokens and builds
// the very struct participle would build for them; anything else (rarer
// forms, every error) returns nil and goes to participle as before.
// TestFastPathsMatchParticiple holds them to participle's result on every
// corpus line, FuzzFastPaths on random input.

// lex runs a mode over src and returns its tokens without the EOF token,
// or nil when the scan hit maxTokens. The token slice is c's, reused by
// the next call (the fast paths copy the tokens they keep); the modes are
// called directly, not through a func value.
func (c *exprCache) lex(m int, src string) []lexer.Token {
	if c.toks == nil {
		c.toks = make([]lexer.Token, 0, 16)
	}
	s := scanner{src: src, toks: c.toks[:0]}
	switch m {
	case lexExpr:
		exprMode(&s)
	case lexAction:
		actionMode(&s)
	case lexHole:
		holeMode(&s)
	}
	c.toks = s.toks
	if s.full {
		return nil
	}
	return s.toks
}

// Modes for lex.
const (
	lexExpr = iota
	lexAction
	lexHole
)

// fastPath reads a `json.a.b` path at toks[i:]; it returns the path and
// the index after it, or false.
// The segments go to buf's storage when it has room, else to a new slice.
func fastPath(toks []lexer.Token, i int, buf []pathSegment) (jsonPath, int, bool) {
	if i >= len(toks) || toks[i].Type != tWord || toks[i].Value != "json" {
		return jsonPath{}, 0, false
	}
	p := jsonPath{JSON: toks[i]}
	i++
	n := 0
	for j := i; j+1 < len(toks) && toks[j].Type == tDot && toks[j+1].Type == tWord; j += 2 {
		n++
	}
	switch {
	case n > 0 && n <= cap(buf):
		p.Segs = buf[:0:n]
	case n > 0:
		p.Segs = make([]pathSegment, 0, n)
	}
	for i+1 < len(toks) && toks[i].Type == tDot && toks[i+1].Type == tWord {
		p.Segs = append(p.Segs, pathSegment{Dot: toks[i], Word: toks[i+1]})
		i += 2
	}
	if len(p.Segs) == 0 || (i < len(toks) && toks[i].Type == tDot) {
		return jsonPath{}, 0, false
	}
	return p, i, true
}

// fastBind recognises `<name> = json.<path>` and `<name> = body match
// /<regex>/`. The result is c's scratch, good until the next call.
func (c *exprCache) fastBind(src string) *bindExpr {
	toks := c.lex(lexExpr, src)
	if len(toks) < 5 || toks[0].Type != tWord || toks[1].Type != tAssign {
		return nil
	}
	if len(toks) == 5 && toks[2].Type == tWord && toks[2].Value == "body" &&
		toks[3].Type == tWord && toks[3].Value == "match" && toks[4].Type == tRegex {
		b := c.bindOut()
		*b = bindExpr{Name: toks[0], Regex: toks[4]}
		return b
	}
	var buf []pathSegment
	if c.scratch != nil {
		buf = c.scratch.segs[:]
	}
	p, i, ok := fastPath(toks, 2, buf)
	if !ok || i != len(toks) {
		return nil
	}
	b := c.bindOut()
	if c.scratch != nil {
		c.scratch.path = p
		*b = bindExpr{Name: toks[0], Path: &c.scratch.path}
	} else {
		*b = bindExpr{Name: toks[0], Path: &jsonPath{JSON: p.JSON, Segs: p.Segs}}
	}
	return b
}

// bindOut returns where fastBind builds its result.
func (c *exprCache) bindOut() *bindExpr {
	if c.scratch != nil {
		return &c.scratch.bind
	}
	return new(bindExpr)
}

// actionOut returns where fastAction builds its result.
func (c *exprCache) actionOut() *actionLine {
	if c.scratch != nil {
		return &c.scratch.action
	}
	return new(actionLine)
}

// fastScratch holds what fastBind and fastAction return: their callers
// read it before the next call and keep none of it, so one of each
// serves every call of a whole document's parse (#20); a cache without
// one (a single expression's) makes a new one. fastAssert's results are
// cached and have their own memory.
type fastScratch struct {
	bind   bindExpr
	path   jsonPath
	segs   [4]pathSegment
	action actionLine
}

// fastAssert recognises `status ==|!= <int>`, `body [not] contains "…"`
// and the json.<path> forms (is, matches, length, comparison).
func (c *exprCache) fastAssert(src string) *assertExpr {
	toks := c.lex(lexExpr, src)
	if len(toks) < 3 || toks[0].Type != tWord {
		return nil
	}
	switch toks[0].Value {
	case "status":
		if len(toks) == 3 && toks[1].Type == tOp && (toks[1].Value == "==" || toks[1].Value == "!=") && toks[2].Type == tRest {
			return &assertExpr{Status: &statusCheck{Kw: toks[0], Op: toks[1], Code: toks[2]}}
		}
		return nil
	case "body":
		b := &bodyCheck{Kw: toks[0]}
		i := 1
		if toks[i].Type == tWord && toks[i].Value == "not" {
			b.Not = toks[i]
			i++
		}
		if i+2 == len(toks) && toks[i].Type == tWord && toks[i].Value == "contains" && toks[i+1].Type == tQuoted {
			b.Contains, b.Text = toks[i], toks[i+1]
			return &assertExpr{Body: b}
		}
		return nil
	case "json":
	default:
		return nil
	}
	p, i, ok := fastPath(toks, 0, nil)
	if !ok || i >= len(toks) {
		return nil
	}
	jc := &jsonCheck{Path: p}
	t, rest := toks[i], toks[i+1:]
	switch {
	case t.Type == tOp && len(rest) == 1 && rest[0].Type == tRest:
		jc.Op, jc.Value = t, rest[0]
	case t.Type != tWord:
		return nil
	case t.Value == "is" && len(rest) == 1 && rest[0].Type == tWord && isTypeName(rest[0].Value):
		jc.Is = &typeCheck{Type: rest[0]}
	case t.Value == "matches" && len(rest) == 1 && rest[0].Type == tRegex:
		jc.Matches = rest[0]
	case t.Value == "length" && len(rest) == 2 && rest[0].Type == tOp && isOrderOp(rest[0].Value) && rest[1].Type == tRest:
		jc.Length = &lengthCheck{Op: rest[0], N: rest[1]}
	default:
		return nil
	}
	return &assertExpr{JSON: jc}
}

func isTypeName(s string) bool {
	switch s {
	case "array", "set", "number", "string", "boolean", "null":
		return true
	}
	return false
}

func isOrderOp(s string) bool { return s == ">=" || s == "<=" || s == ">" || s == "<" }

// fastAction recognises `<tool> <json-args>` and a lone tool. The result
// is c's scratch, good until the next call.
func (c *exprCache) fastAction(value string) *actionLine {
	toks := c.lex(lexAction, value)
	switch {
	case len(toks) == 1 && toks[0].Type == tTool:
		a := c.actionOut()
		*a = actionLine{Tool: toks[0]}
		return a
	case len(toks) == 2 && toks[0].Type == tTool && toks[1].Type == tRest:
		a := c.actionOut()
		*a = actionLine{Tool: toks[0], Args: toks[1]}
		return a
	}
	return nil
}

// fastHole recognises `name` and `name±word` between a hole's braces.
func (c *exprCache) fastHole(inner string) *hole {
	toks := c.lex(lexHole, inner)
	switch {
	case len(toks) == 1 && toks[0].Type == tWord:
		return &hole{Name: toks[0]}
	case len(toks) == 3 && toks[0].Type == tWord && toks[1].Type == tSign && toks[2].Type == tWord:
		return &hole{Name: toks[0], Sign: toks[1], Offset: toks[2]}
	}
	return nil
}
