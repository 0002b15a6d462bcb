package compile

import (
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/tool/jsondata"
)

// Picks among the elements of one shape (#33). An agent often acts on
// "the merged feature branch", "the release commit", "the oldest release
// candidate": the kind of element is written in one of its fields — a
// leading word before `/` or `:` (`feature/…`, `release: …`), or the
// value's shape once its numbers are set aside (`v3.0.0-rc.1` among
// `v3.0.0` and `v2.9.0`). When the picked element is the only one of its
// shape, and the agent's notes name the shape's word, or when it is the
// extreme the notes ask for ("oldest", "newest", "recent") among the
// elements of its shape, ordered by that same field, the bind states that
// instead of a position: `only(json.branches where name matches
// /^feature\//)`, `min(json.tags where name matches
// /^v\d+\.\d+\.\d+-rc\.\d+$/ by name as version)`. A shape that every
// candidate has says nothing, and is not a reason.

// elementShape is one shape of a string: the regex a `matches` condition
// writes, the words of its literal parts, and a test that reads a value
// the way the regex does.
type elementShape struct {
	pattern func() string
	words   func() []string
	match   func(string) bool
}

// shapesOf returns the shapes a field's value gives: its leading word
// before `/` or `:`, then its shape with digit runs set aside. Each is a
// few string operations; nothing here compiles a regex.
func shapesOf(s string) []elementShape {
	var out []elementShape
	if i := strings.IndexAny(s, "/:"); i >= 2 && i+1 < len(s) && leadingWord(s[:i]) {
		prefix := s[:i+1]
		out = append(out, elementShape{
			pattern: func() string { return "^" + escapeRegex(prefix) },
			words:   func() []string { return []string{strings.ToLower(prefix[:len(prefix)-1])} },
			match:   func(v string) bool { return strings.HasPrefix(v, prefix) },
		})
	}
	if hasDigitShape(s) {
		orig := s
		out = append(out, elementShape{
			pattern: func() string {
				_, lits := digitShape(orig)
				var b strings.Builder
				b.WriteByte('^')
				for i, l := range lits {
					if i > 0 {
						b.WriteString(`\d+`)
					}
					b.WriteString(escapeRegex(l))
				}
				b.WriteByte('$')
				return b.String()
			},
			words: func() []string {
				_, lits := digitShape(orig)
				var words []string
				for _, l := range lits {
					for _, w := range strings.FieldsFunc(l, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
						if len(w) >= 2 {
							words = append(words, strings.ToLower(w))
						}
					}
				}
				return words
			},
			match: func(v string) bool { return sameDigitShape(orig, v) },
		})
	}
	return out
}

// leadingWord reports a run of letters, digits, `-` and `_` that starts
// with a letter: a kind's name, not a path or a sentence.
func leadingWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter || !letter && !isDigitByte(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// hasDigitShape reports what digitShape would give a key for, without
// making it: a single-line value of at most 256 bytes with a digit and a
// letter.
func hasDigitShape(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	digit, letter := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\r' || c == 0:
			return false
		case isDigitByte(c):
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return digit && letter
}

// digitShape returns a single-line value with each run of ASCII digits
// replaced by a NUL (its key), and the literal parts between the runs.
// A value with no digit, no letter, or a line break has no shape ("").
func digitShape(s string) (string, []string) {
	if s == "" || len(s) > 256 || strings.ContainsAny(s, "\n\r\x00") {
		return "", nil
	}
	var key strings.Builder
	var lits []string
	start, digits, letters := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigitByte(c) {
			if !digits {
				lits = append(lits, s[start:i])
				key.WriteString(s[start:i])
				key.WriteByte(0)
				digits = true
			}
			start = i + 1
			continue
		}
		digits = false
		letters = letters || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if len(lits) == 0 || !letters {
		return "", nil
	}
	lits = append(lits, s[start:])
	key.WriteString(s[start:])
	return key.String(), lits
}

// shaped looks for a field of the picked element whose shape explains the
// pick: the bound field first, then the others in order.
func (p pickSite) shaped(members []jsondata.Member) *ast.Selection {
	if p.notes == "" {
		return nil // the rule rests on the agent's words
	}
	fieldKey, _, _ := strings.Cut(p.field, ".")
	for _, first := range []bool{true, false} {
		for _, m := range members {
			if (m.Key == fieldKey) != first || !ruleKey(m.Key) {
				continue
			}
			s, ok := m.Value.(string)
			if !ok {
				continue
			}
			for _, sh := range shapesOf(s) {
				if sel := p.withinShape(m.Key, sh); sel != nil {
					return sel
				}
			}
		}
	}
	return nil
}

// withinShape is the selection a shape of key gives, or nil: the only
// element of that shape when the notes name one of its words, or the
// extreme of key the notes ask for among the elements of that shape.
func (p pickSite) withinShape(key string, sh elementShape) *ast.Selection {
	var kept []*jsondata.Object
	picked := -1
	for i, c := range p.cands {
		v, _ := c.Get(key)
		if s, ok := v.(string); ok && sh.match(s) {
			if i == p.picked {
				picked = len(kept)
			}
			kept = append(kept, c)
		}
	}
	if picked < 0 || len(kept) == len(p.cands) {
		return nil
	}
	cond := &ast.Condition{Key: pathNode(key), Op: ast.CondMatches, Pattern: sh.pattern()}
	if len(kept) == 1 {
		for _, w := range sh.words() {
			if containsWord(p.notes, w) {
				return p.sel(ast.PickOnly, cond)
			}
		}
		return nil
	}
	dir, byTime := noteDirection(p.notes)
	if dir == "" || !byTime {
		return nil
	}
	ord, ok := orderingOf(kept, key, p.lines)
	if !ok || ord == ast.OrderNumber || ord == ast.OrderText {
		return nil
	}
	if ord == ast.OrderName && !(pickSite{cands: kept}).digitNames(key) {
		// Names without numbers in them have no age.
		return nil
	}
	isMax, isMin := uniqueExtreme(kept, picked, key, ord)
	if dir == ast.PickMax && !isMax || dir == ast.PickMin && !isMin {
		return nil
	}
	s := p.sel(dir, cond)
	s.By, s.HasBy, s.Order = pathNode(key), true, ord
	return s
}

// amongSeveral notes, for a bind that picks the extreme of several
// elements ("the oldest release candidate") to feed a destructive step,
// the assert that there are several still: removing the oldest of two is
// not what removing the only one is, and the recording never showed the
// agent doing that. The source step gets `count(<source> where …) > 1`.
func (c *compiler) amongSeveral(bd *binding, p pickSite) {
	sel := bd.sel
	if sel == nil || sel.Pick != ast.PickMin && sel.Pick != ast.PickMax || len(sel.Where) == 0 {
		return
	}
	destructive := false
	for _, n := range c.binder.consumers[bd] {
		if n-1 >= 0 && n-1 < len(c.steps) && c.effect(c.steps[n-1]) == ast.EffectDestructive {
			destructive = true
		}
	}
	if !destructive {
		return
	}
	cnt := &ast.Selection{Pick: ast.PickCount, Source: sel.Source, Where: sel.Where}
	txt := format.Selection(cnt)
	from := c.steps[bd.step]
	for _, q := range from.pre {
		if format.Selection(q.Sel) == txt {
			return
		}
	}
	from.pre = append(from.pre, &ast.SelectionAssert{Sel: cnt, Kind: ast.SelCompare, Op: ast.OpGt, Value: &ast.Number{Raw: "1"}})
}

// sameDigitShape reports whether two strings are the same once each run
// of ASCII digits is set aside — what digitShape's key compares, without
// making one for every candidate.
func sameDigitShape(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		da, db := isDigitByte(a[i]), isDigitByte(b[j])
		switch {
		case da && db:
			for i < len(a) && isDigitByte(a[i]) {
				i++
			}
			for j < len(b) && isDigitByte(b[j]) {
				j++
			}
		case da || db || a[i] != b[j]:
			return false
		default:
			i++
			j++
		}
	}
	return i == len(a) && j == len(b) && !strings.ContainsAny(b, "\n\r\x00")
}
