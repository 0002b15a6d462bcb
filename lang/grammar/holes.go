package grammar

import (
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

// hole is the inside of a `{{…}}` template hole: a name, optionally
// followed by a signed day offset (`today-7d`).
type hole struct {
	Name   lexer.Token `parser:"@Word"`
	Sign   lexer.Token `parser:"( @Sign"`
	Offset lexer.Token `parser:"@Word )?"`
}

// holeParser is built on first use (see assertParser).
var holeParser = sync.OnceValue(func() *participle.Parser[hole] {
	return participle.MustBuild[hole](participle.Lexer(miniLexer{scan: holeMode}))
})

// maxOffsetDigits keeps a day offset inside an int; anything longer is out
// of the 1..365 range anyway and is reported when the skill runs.
const maxOffsetDigits = 6

// findHoles returns the template holes in a decoded string value. at maps a
// byte offset of the value to its file position. Text between `{{` and
// `}}` that is not a name (or today±Nd) stays literal text.
func (c *exprCache) findHoles(val string, at func(int) ast.Pos) []*ast.Hole {
	holes := c.found[:0]
	defer func() { clear(c.found) }()
	for i := 0; i < len(val); {
		closing := strings.Index(val[i:], "}}")
		if closing < 0 {
			break
		}
		closing += i
		// The hole is the innermost `{{` before this `}}`; each byte is
		// looked at a bounded number of times, so hostile strings full of
		// braces stay linear.
		open := strings.LastIndex(val[i:closing], "{{")
		if open >= 0 && closing-(i+open)-2 <= maxHoleLen {
			open += i
			if h := c.hole(val[open+2 : closing]); h != nil {
				h.Start, h.End = open, closing+2
				h.Range = ast.Range{Start: at(open), End: at(closing + 2)}
				nameStart := open + 2 + strings.Index(val[open+2:closing], h.Written)
				h.NameRange = ast.Range{Start: at(nameStart), End: at(nameStart + len(h.Written))}
				holes = append(holes, h)
			}
		}
		i = closing + 2
	}
	c.found = holes
	if len(holes) == 0 {
		return nil
	}
	var out []*ast.Hole
	if c.chunked {
		out = c.holePs.take(len(holes))
	} else {
		out = make([]*ast.Hole, len(holes))
	}
	copy(out, holes)
	return out
}

// maxHoleLen bounds the text between a hole's braces; longer text is never
// a name and is not handed to the hole grammar.
const maxHoleLen = 128

// hole parses the text between a hole's braces once per distinct text and
// returns a fresh copy to be positioned. A bare name, the common hole,
// needs neither the grammar nor the cache (identHole).
func (c *exprCache) hole(inner string) *ast.Hole {
	if v, ok := identHoleValue(inner); ok {
		return c.newHole(v)
	}
	h, ok := c.holes[inner]
	if !ok {
		h = c.parseHole(inner)
		if c.holes == nil {
			c.holes = map[string]*ast.Hole{}
		}
		c.holes[inner] = h
	}
	if h == nil {
		return nil
	}
	return c.newHole(*h)
}

// newHole returns a copy of h, from a slab for a whole document.
func (c *exprCache) newHole(h ast.Hole) *ast.Hole {
	if !c.chunked {
		kept := h
		return &kept
	}
	n := c.holeVals.new()
	*n = h
	return n
}

// identHole returns the hole of inner when it is a bare name, as
// parseHole would (TestFastPathsMatchParticiple, FuzzFastPaths), else nil.
func identHole(inner string) *ast.Hole {
	if h, ok := identHoleValue(inner); ok {
		return &h
	}
	return nil
}

// identHoleValue is identHole's hole as a value, and whether there is one.
func identHoleValue(inner string) (ast.Hole, bool) {
	switch {
	case !words.IsIdent(inner):
		return ast.Hole{}, false
	case inner == "today":
		return ast.Hole{Kind: ast.HoleToday, Name: "today", Written: "today"}, true
	}
	return ast.Hole{Kind: ast.HoleVar, Name: inner, Written: inner}, true
}

// parseHole classifies the text between the braces, or returns nil when it
// is not a hole.
func (c *exprCache) parseHole(inner string) *ast.Hole {
	h := c.parseWellFormedHole(inner)
	if h == nil && looksLikeDate(inner) {
		t := strings.TrimSpace(inner)
		return &ast.Hole{Kind: ast.HoleMalformedDate, Name: "today", Written: t}
	}
	return h
}

// looksLikeDate reports text between braces that starts like a computed
// date with an offset: `today`, blanks allowed, then + or -.
func looksLikeDate(inner string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(inner), "today")
	rest = strings.TrimLeft(rest, " \t")
	return ok && rest != "" && (rest[0] == '+' || rest[0] == '-')
}

// parseWellFormedHole classifies a name or computed date hole, or returns
// nil.
func (c *exprCache) parseWellFormedHole(inner string) *ast.Hole {
	g, err := c.fastHole(inner), error(nil)
	if g == nil {
		g, err = holeParser().ParseString("", inner)
	}
	if err != nil || !words.IsIdent(g.Name.Value) {
		return nil
	}
	switch {
	case g.Sign.Value == "" && g.Name.Value == "today":
		return &ast.Hole{Kind: ast.HoleToday, Name: "today", Written: "today"}
	case g.Sign.Value == "":
		return &ast.Hole{Kind: ast.HoleVar, Name: g.Name.Value, Written: g.Name.Value}
	case g.Name.Value != "today" || g.Sign.Pos.Offset != g.Name.Pos.Offset+len(g.Name.Value):
		return nil
	}
	digits, ok := strings.CutSuffix(g.Offset.Value, "d")
	if !ok || digits == "" || len(digits) > maxOffsetDigits || g.Offset.Pos.Offset != g.Sign.Pos.Offset+1 {
		return nil
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return nil
	}
	if g.Sign.Value == "-" {
		n = -n
	}
	return &ast.Hole{Kind: ast.HoleTodayOffset, Name: "today", Days: n, Written: "today" + g.Sign.Value + g.Offset.Value}
}

// ReservedNames describes the computed date variables a bind may not
// define; SPEC.md's reserved-name table must list exactly these.
var ReservedNames = []string{"today", "today+<N>d", "today-<N>d"}

// IsReservedName reports whether name is one of the computed date variables
// (`today`, `today+Nd`, `today-Nd`) that a bind may not define.
func IsReservedName(name string) bool {
	if name == "today" {
		return true
	}
	rest, ok := strings.CutPrefix(name, "today")
	if !ok || len(rest) < 3 || (rest[0] != '+' && rest[0] != '-') || rest[len(rest)-1] != 'd' {
		return false
	}
	for _, c := range rest[1 : len(rest)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
