package compile

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// Facts about the rows a step read, for the short numbers and the
// decisions a string argument (a query, a command) carries (#33):
//
//   - a short number beside values computed over some rows is how many
//     of those rows there were: `count(json where status == "overdue")`;
//   - a short number written right after its own key (`id = 12`) is that
//     field of the one element holding it, picked by the agent's reason
//     (induce.go) rather than copied;
//   - a number a writing step sends that nothing explains, beside a value
//     picked from a list, may have been worked out from the picked
//     element: its number fields are asserted, so a replay stops when
//     they change, and a question says so;
//   - a read that came back empty before a write is what the agent went
//     on from: nothing there for the value it then wrote
//     (`count(json where sku == "{{sku}}") == 0`), or nothing at all when
//     the read asked for a word the write sends again.

// keyBefore reads the key a value is written after: `id = `, `id=`,
// `"id": `, `qty: '`.
var keyBefore = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)["']?\s*(?:==?|:)\s*['"]?$`)

// maxShortNumbers is the most short numbers of one string looked at:
// each may read the last results' rows.
const maxShortNumbers = 8

// maxKeyLook is how much of the text before a short value keyBefore
// reads.
const maxKeyLook = 64

// shortNumbers explains the short numbers of a string the step sends (the
// spans short) that the other parts did not: a count of the rows a
// computed part was computed over, or a field of the one element that
// holds it, after its own key. It returns the new parts. Each count is
// taken once per string, at most maxShortNumbers keyed values are looked
// up, and the numbers left are handled together.
func (c *compiler) shortNumbers(st *step, s string, short []span, parts []holePart) []holePart {
	var out []holePart
	counts := c.countsOf(parts)
	var left []string
	keyed, categories := 0, 0
	for _, sp := range short {
		tok := s[sp.start:sp.end]
		if cn, ok := counts[tok]; ok {
			out = append(out, holePart{span: sp, name: c.aggBind(st, cn.r, cn.sel, 'n', tok, []string{"count"})})
			continue
		}
		before := s[max(0, sp.start-maxKeyLook):sp.start]
		if keyed < maxShortNumbers {
			if m := keyBefore.FindStringSubmatch(before); m != nil {
				keyed++
				if name := c.keyedPick(st, tok, m[1]); name != "" {
					out = append(out, holePart{span: sp, name: name})
					continue
				}
			}
		}
		if categories < maxShortNumbers {
			categories++
			if cat, ok := c.categoryCount(st, s, tok); ok {
				out = append(out, holePart{span: sp, name: cat})
				continue
			}
		}
		if len(left) < maxShortNumbers {
			left = append(left, tok)
		}
	}
	if len(left) > 0 {
		c.unexplainedNumbers(st, left, append(slices.Clip(parts), out...))
	}
	return out
}

// counted is the count of the rows a computed part was computed over.
type counted struct {
	r   *recentResult
	sel *ast.Selection
}

// countsOf takes, once, the count of the rows each part of a string that
// sums or joins rows was computed over, by its text.
func (c *compiler) countsOf(parts []holePart) map[string]counted {
	var out map[string]counted
	for _, p := range parts {
		bd := c.bindOf[p.name]
		if bd == nil || bd.sel == nil || bd.sel.Pick != ast.PickSum && bd.sel.Pick != ast.PickJoin {
			continue
		}
		r := c.recent[bd.step]
		if r == nil {
			continue
		}
		cnt := &ast.Selection{Pick: ast.PickCount, Source: bd.sel.Source, Where: bd.sel.Where}
		v, found, err := replay.SelectionValue(observationOf(r), cnt)
		n, isNum := v.(jsondata.Number)
		if err != nil || !found || !isNum {
			continue
		}
		if out == nil {
			out = map[string]counted{}
		}
		if _, have := out[string(n)]; !have {
			out[string(n)] = counted{r: r, sel: cnt}
		}
	}
	return out
}

// observationOf is a kept result as the runtime sees it.
func observationOf(r *recentResult) *tool.Observation {
	obs := &tool.Observation{Status: 200, Body: r.text}
	if len(r.doc.text) > 0 {
		obs.Structured = r.doc.text
	}
	return obs
}

// keyedPick binds a short value written after key when one recent result
// has exactly one element whose key holds it and a rule explains why the
// agent took that element.
func (c *compiler) keyedPick(st *step, tok, key string) string {
	if !ruleKey(key) {
		return ""
	}
	for _, r := range c.latest(st) {
		for _, a := range r.arrays() {
			picked := -1
			n := 0
			for i, o := range a.objs {
				v, ok := o.Get(key)
				if !ok {
					continue
				}
				if t, ok := scalarText(v); ok && t == tok {
					picked = i
					n++
				}
			}
			if n != 1 {
				continue
			}
			from := c.steps[r.step]
			var notes strings.Builder
			for _, ns := range [][]string{from.notes, st.notes} {
				for _, note := range ns {
					notes.WriteString(strings.ToLower(note))
					notes.WriteByte('\n')
				}
			}
			p := pickSite{src: jsonSource(a.path), cands: a.objs, picked: picked, field: key, notes: notes.String()}
			sel, _ := induce(p)
			if sel == nil || !verifySel(sel, r, nil, tok) {
				return ""
			}
			kind := byte('s')
			if v, _ := a.objs[picked].Get(key); v != nil {
				if _, isNum := v.(jsondata.Number); isNum {
					kind = 'n'
				}
			}
			return c.aggBind(st, r, sel, kind, tok, []string{snake(key)})
		}
	}
	return ""
}

// unexplainedNumbers handles the numbers a writing step sends that nothing
// explains: when the same string takes a value picked from a JSON list,
// the number may have been worked out from the picked element (a
// quantity from its stock), so each number field of that element is
// asserted where it was read, and a question names the number.
func (c *compiler) unexplainedNumbers(st *step, toks []string, parts []holePart) {
	if c.effect(st) == ast.EffectRead {
		return
	}
	var asserted []string
	for _, p := range parts {
		bd := c.bindOf[p.name]
		if bd == nil || bd.sel == nil || bd.sel.Source.Kind != ast.SourceJSON || bd.sel.Pick.Aggregate() {
			continue
		}
		r := c.recent[bd.step]
		if r == nil {
			continue
		}
		whole := *bd.sel
		whole.Field = ast.Path{}
		v, found, err := replay.SelectionValue(observationOf(r), &whole)
		el, isObj := v.(*jsondata.Object)
		if err != nil || !found || !isObj {
			continue
		}
		from := c.steps[bd.step]
		for i, m := range el.Members {
			n, isNum := m.Value.(jsondata.Number)
			if i >= maxRuleFields || !isNum || !ruleKey(m.Key) || isVolatileKey(m.Key) {
				continue
			}
			sel := whole
			sel.Field = pathNode(m.Key)
			c.addPre(from, &ast.SelectionAssert{Sel: &sel, Kind: ast.SelCompare, Op: ast.OpEq, Value: &ast.Number{Raw: string(n)}})
			asserted = append(asserted, format.Selection(&sel))
		}
	}
	if len(asserted) > 0 {
		c.q.add(st.n, KindComputedNumber, "%s: it sends %s, which no result held and no rule computes; it may have been worked out from the element step %s picked, so that step asserts %s — a replay stops when they change; if it follows them, write how (an input, or a bind) by hand.", ref(st), numbersPhrase(toks), stepOfSel(c, parts), strings.Join(asserted, ", "))
	}
}

// stepOfSel names the step the first picked part was read from.
func stepOfSel(c *compiler, parts []holePart) string {
	for _, p := range parts {
		if bd := c.bindOf[p.name]; bd != nil && bd.sel != nil {
			return strconv.Itoa(c.steps[bd.step].n)
		}
	}
	return "?"
}

// addPre adds an assert to a step's preconditions unless it has it.
func (c *compiler) addPre(st *step, a *ast.SelectionAssert) {
	txt := format.Selection(a.Sel)
	for _, p := range st.pre {
		if format.Selection(p.Sel) == txt && p.Op == a.Op {
			return
		}
	}
	st.pre = append(st.pre, a)
}

// notEmpty notes, on the step a value was computed from over the rows a
// `where` keeps, that some rows were kept: the agent computed it because
// there was something to compute (an empty join sends nothing).
func (c *compiler) notEmpty(from *step, sel *ast.Selection) {
	if len(sel.Where) == 0 {
		return
	}
	cnt := &ast.Selection{Pick: ast.PickCount, Source: sel.Source, Where: sel.Where}
	c.addPre(from, &ast.SelectionAssert{Sel: cnt, Kind: ast.SelCompare, Op: ast.OpGt, Value: &ast.Number{Raw: "0"}})
}

// rememberWords keeps the string arguments of the last few reading
// steps, joined, for a later write that sends one of their words again:
// was the read's empty answer its reason? They are split into words only
// then, for a read whose answer was empty.
func (c *compiler) rememberWords(st *step, leaves []argLeaf) {
	if c.callWords == nil {
		c.callWords = map[int]string{}
	}
	delete(c.callWords, st.n-1-recentResults)
	if c.effect(st) != ast.EffectRead {
		return
	}
	var b strings.Builder
	for _, l := range leaves {
		if !l.num && len(l.raw) <= maxCheckedText {
			b.WriteString(l.raw)
			b.WriteByte('\n')
		}
	}
	c.callWords[st.n-1] = b.String()
}

// wordsOf is the set of the words of a remembered read's arguments.
func wordsOf(s string) map[string]bool {
	words := map[string]bool{}
	for _, sp := range tokenSpans(s, nil) {
		words[s[sp.start:sp.end]] = true
	}
	return words
}

// emptyReadPrecondition gives a read among the last few whose answer was
// an empty list, before a writing step's string argument, the assert the
// agent's going on rested on: no element holds the value the write took
// from a pick (`count(json where sku == "{{sku}}") == 0`, when the read
// names that field), or, failing that, nothing at all when the read asked
// for a word of four or more characters the write sends again.
func (c *compiler) emptyReadPrecondition(st *step, l argLeaf) {
	if l.num || c.effect(st) == ast.EffectRead {
		return
	}
	var composed *ast.String
	for _, h := range st.holes {
		if h.ord == l.ord && h.composed != nil {
			composed = h.composed
		}
	}
	for _, r := range c.latest(st) {
		from := c.steps[r.step]
		said, ok := c.callWords[r.step]
		if !ok || c.effect(from) != ast.EffectRead {
			continue
		}
		arrs := r.arrays()
		if len(arrs) != 1 || arrs[0].path != "" || len(arrs[0].objs) != 0 {
			continue
		}
		words := wordsOf(said)
		keyed := false
		if composed != nil {
			for _, h := range composed.Holes {
				bd := c.bindOf[h.Name]
				// A number bind cannot be compared in a condition (a hole
				// is text, and == is strict): its assert would hold always.
				if bd == nil || bd.sel == nil || bd.kind != 's' || bd.step >= r.step || bd.sel.Pick.Aggregate() || len(bd.sel.Field.Elements) != 1 {
					continue
				}
				key := bd.sel.Field.String()
				if !ruleKey(key) || !words[key] {
					continue
				}
				sel := &ast.Selection{Pick: ast.PickCount, Source: jsonSource(""), Where: []*ast.Condition{eqCond(key, condValue(nil, h.Name))}}
				c.addPre(from, &ast.SelectionAssert{Sel: sel, Kind: ast.SelCompare, Op: ast.OpEq, Value: &ast.Number{Raw: "0"}})
				keyed = true
			}
		}
		if keyed {
			continue
		}
		for _, sp := range tokenSpans(l.raw, nil) {
			tok := l.raw[sp.start:sp.end]
			// A word all in capitals is a command's keyword (`WHERE`),
			// which any two queries share.
			if utf8.RuneCountInString(tok) >= minTokenLen && words[tok] && strings.ToUpper(tok) != tok {
				c.addPre(from, &ast.SelectionAssert{Sel: &ast.Selection{Pick: ast.PickCount, Source: jsonSource("")}, Kind: ast.SelCompare, Op: ast.OpEq, Value: &ast.Number{Raw: "0"}})
				break
			}
		}
	}
}

// noteBind makes a bind findable by its name.
func (c *compiler) noteBind(bd *binding) {
	if c.bindOf == nil {
		c.bindOf = map[string]*binding{}
	}
	c.bindOf[bd.name] = bd
}

// sortedJoin orders a join by its own field when the agent's values were
// in ascending order of it: ids joined in order are a set the agent
// sorted, and a replay keeps them sorted whatever order the rows come in.
func sortedJoin(s *ast.Selection, values []string) {
	if len(values) < 2 {
		return
	}
	for i := 1; i < len(values); i++ {
		if replay.CompareNatural(values[i-1], values[i]) >= 0 {
			return
		}
	}
	s.By, s.HasBy, s.Order = s.Field, true, ast.OrderName
}

// numbersPhrase names the numbers a question is about: "the number 88",
// "the numbers 88, 5".
func numbersPhrase(toks []string) string {
	if len(toks) == 1 {
		return "the number " + toks[0]
	}
	return "the numbers " + strings.Join(toks, ", ")
}

// categoryCount binds a short number a string sends as how many rows of
// a recent result hold one category value, when exactly one (array,
// field, value) gives that count and every word of the value is a word
// of the string the agent wrote ("2 open bugs" and two rows with
// entityType "open-bug"): the agent counted them, and a replay counts
// again — `count(json.entities where entityType == "open-bug")`. Any
// doubt (two categories with that count, a value's word missing from the
// text) leaves the number to unexplainedNumbers.
func (c *compiler) categoryCount(st *step, s, tok string) (string, bool) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 {
		return "", false
	}
	text := strings.ToLower(s)
	var (
		found  *ast.Selection
		from   *recentResult
		shared int
	)
	work := 0
	for _, r := range c.latest(st) {
		for _, a := range r.arrays() {
			for _, f := range filters(a.objs, &work) {
				if f.key == "" || len(f.rows) != n || !wordsIn(f.val, text) {
					continue
				}
				shared++
				found = &ast.Selection{Pick: ast.PickCount, Source: jsonSource(a.path), Where: []*ast.Condition{f.cond()}}
				from = r
			}
		}
	}
	if shared != 1 {
		return "", false
	}
	if v, ok, err := replay.SelectionValue(observationOf(from), found); err != nil || !ok || !textIs(v, tok) {
		return "", false
	}
	return c.aggBind(st, from, found, 'n', tok, []string{"count"}), true
}

// wordsIn reports whether every word of a category value (letters, at
// least three) starts a word of text; a value with no such word is not
// named by any text.
func wordsIn(val, text string) bool {
	words := strings.FieldsFunc(strings.ToLower(val), func(r rune) bool { return !unicode.IsLetter(r) })
	seen := 0
	for _, w := range words {
		if utf8.RuneCountInString(w) < 3 {
			continue
		}
		seen++
		if !wordStarts(text, w) {
			return false
		}
	}
	return seen > 0
}

// wordStarts reports whether w starts a word of text.
func wordStarts(text, w string) bool {
	for i := 0; ; {
		k := strings.Index(text[i:], w)
		if k < 0 {
			return false
		}
		k += i
		if r, _ := utf8.DecodeLastRuneInString(text[:k]); k == 0 || !unicode.IsLetter(r) {
			return true
		}
		i = k + 1
	}
}

func textIs(v any, tok string) bool {
	t, ok := scalarText(v)
	return ok && t == tok
}
