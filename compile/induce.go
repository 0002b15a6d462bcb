package compile

import (
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool/jsondata"
)

// Rule induction (#33). When a later call uses a value the agent picked
// from a collection — an element of a JSON array, a row of a text
// listing — the compiler looks for the reason the agent picked it among
// the recorded candidates, and writes that reason as a selection
// (SPEC.md §5.1) instead of the element's position. Reasons are tried
// from the one that best survives a reordered, grown or pre-filled world
// to the weakest:
//
//  1. the only element whose field holds something the agent sent or
//     bound (`only(json.entities where name == "{{customer}}")`);
//  2. the only element whose field holds a value the agent's note names;
//  3. the unique extreme of an ordering — a date, a version, a number, a
//     name with digits — when the note says which way ("newest",
//     "lowest", the field's own name), or, unasked, the newest of a date,
//     version or dated name;
//  4. the only element of its category (`entityType == "customer"`);
//  5. the only element there was.
//
// Nothing found means the position stays, and an open question says no
// rule explains the pick. Every search is bounded: at most maxCandidates
// elements are looked at, and at most maxRuleFields fields of the picked
// one; nothing is quadratic in the result.

const (
	// maxCandidates is the most elements of one collection a rule is
	// induced over; a larger collection keeps the position.
	maxCandidates = 10000
	// maxRuleFields is the most fields of the picked element tried.
	maxRuleFields = 32
)

// pickSite is one pick to explain.
type pickSite struct {
	src    ast.Source
	cands  []*jsondata.Object
	picked int
	// field is the bound member of the picked element, dotted ("" for the
	// element itself); it is the selection's trailing path.
	field string
	// known tells whether the agent had a value before the pick: the
	// bound name that holds it, or ok with no name for a literal it sent.
	known func(v string) (hole string, ok bool)
	// notes are the agent's words around the pick (the source step's and
	// the consuming steps' notes), lower-cased.
	notes string
	// lines is set for a text listing: orderings of names are looked for
	// in its captures too.
	lines bool
}

// ruleKind names the reason a selection states, for the summary and tests.
type ruleKind string

const (
	ruleKnown    ruleKind = "known"
	ruleNote     ruleKind = "note"
	ruleExtreme  ruleKind = "extreme"
	ruleCategory ruleKind = "category"
	ruleShape    ruleKind = "shape"
	ruleOnly     ruleKind = "only"
)

// induce returns the selection that explains the pick, and its kind, or
// nil when nothing does.
func induce(p pickSite) (*ast.Selection, ruleKind) {
	if p.picked < 0 || p.picked >= len(p.cands) || len(p.cands) > maxCandidates {
		return nil, ""
	}
	el := p.cands[p.picked]
	members := el.Members
	if len(members) > maxRuleFields {
		members = members[:maxRuleFields]
	}
	fieldKey, _, _ := strings.Cut(p.field, ".")
	// 1. The only element holding what the agent sent or bound; a bound
	// name first, then a literal, and a field other than the bound one
	// before the bound one itself.
	for _, sameField := range []bool{false, true} {
		for _, m := range members {
			if p.known == nil || !ruleKey(m.Key) || (m.Key == fieldKey) != sameField {
				continue
			}
			v, ok := scalarText(m.Value)
			if !ok || len([]rune(v)) < minLiteralLen {
				// A short value matches what the agent had by chance.
				continue
			}
			hole, ok := p.known(v)
			if _, isStr := m.Value.(string); !isStr {
				// A number is compared as a number: the recorded one.
				hole = ""
			}
			if ok && countEq(p.cands, m.Key, m.Value) == 1 {
				return p.sel(ast.PickOnly, eqCond(m.Key, condValue(m.Value, hole))), ruleKnown
			}
		}
	}
	// 2. The only element holding a value the note names.
	if p.notes != "" {
		for _, m := range members {
			s, ok := m.Value.(string)
			if !ok || !ruleKey(m.Key) || len([]rune(s)) < minLiteralLen || !containsWord(p.notes, strings.ToLower(s)) {
				continue
			}
			if countEq(p.cands, m.Key, m.Value) == 1 {
				return p.sel(ast.PickOnly, eqCond(m.Key, condValue(m.Value, ""))), ruleNote
			}
		}
	}
	// 3. The extreme of an ordering.
	if len(p.cands) >= 2 {
		if s := p.extreme(members); s != nil {
			return s, ruleExtreme
		}
	}
	// 3b. The only element of its shape, or the extreme among them
	// (shaperule.go).
	if len(p.cands) >= 2 {
		if s := p.shaped(members); s != nil {
			return s, ruleShape
		}
	}
	// 4. The only element of its category.
	for _, m := range members {
		s, ok := m.Value.(string)
		if !ok || !isCategoryKey(m.Key) || m.Key == fieldKey || s == "" {
			continue
		}
		if countEq(p.cands, m.Key, m.Value) == 1 {
			return p.sel(ast.PickOnly, eqCond(m.Key, condValue(m.Value, ""))), ruleCategory
		}
	}
	// 5. The only element there was.
	if len(p.cands) == 1 {
		return p.sel(ast.PickOnly), ruleOnly
	}
	return nil, ""
}

// sel builds the selection over the site's source with the site's
// trailing field.
func (p pickSite) sel(pick ast.Pick, where ...*ast.Condition) *ast.Selection {
	s := &ast.Selection{Pick: pick, Source: p.src, Where: where}
	if p.field != "" {
		s.Field = pathNode(p.field)
	}
	return s
}

// extreme finds the field whose ordering has the picked element as its
// unique maximum or minimum, guided by the note's words: a field the note
// names, and the direction it asks for ("newest", "lowest"). Unasked,
// only the newest of a date, a version or a dated name counts: with a
// handful of candidates every number that varies has an extreme by
// chance.
func (p pickSite) extreme(members []jsondata.Member) *ast.Selection {
	dir, byTime := noteDirection(p.notes)
	type found struct {
		key   string
		ord   ast.Ordering
		pick  ast.Pick
		named bool
	}
	var best *found
	score := func(f found) int {
		s := 0
		if f.named {
			s += 8
		}
		if dir != "" && f.pick == dir {
			s += 4
		}
		switch f.ord {
		case ast.OrderDate:
			s += 3
		case ast.OrderVersion:
			s += 2
		case ast.OrderName:
			s++
		}
		return s
	}
	for _, m := range members {
		if !ruleKey(m.Key) {
			continue
		}
		ord, ok := orderingOf(p.cands, m.Key, p.lines)
		if !ok {
			continue
		}
		isMax, isMin := uniqueExtreme(p.cands, p.picked, m.Key, ord)
		if !isMax && !isMin {
			continue
		}
		named := p.notes != "" && noteNames(p.notes, m.Key)
		for _, pk := range []ast.Pick{ast.PickMax, ast.PickMin} {
			if pk == ast.PickMax && !isMax || pk == ast.PickMin && !isMin {
				continue
			}
			f := found{key: m.Key, ord: ord, pick: pk, named: named}
			// Age orders dates, versions and dated names; size orders
			// numbers.
			aged := ord == ast.OrderDate || ord == ast.OrderVersion || ord == ast.OrderName && p.digitNames(m.Key)
			fits := aged == byTime && (aged || ord == ast.OrderNumber)
			asked := named || (dir != "" && pk == dir && fits)
			dated := (ord == ast.OrderDate || ord == ast.OrderVersion || ord == ast.OrderName && p.datedNames(m.Key)) && pk == ast.PickMax && dir == ""
			if dir != "" && pk != dir || !asked && !dated {
				continue
			}
			if best == nil || score(f) > score(*best) {
				best = &f
			}
		}
	}
	if best == nil {
		return nil
	}
	s := p.sel(best.pick)
	s.By, s.HasBy, s.Order = pathNode(best.key), true, best.ord
	return s
}

// digitNames reports whether every candidate's value of key holds a
// digit (natural order then reads their numbers), and datedNames whether
// every one holds a date (`app-2026-11-30.log`), so that natural order is
// their age: ids with digits are not dated, and their largest is not the
// newest unless a note says so.
func (p pickSite) digitNames(key string) bool {
	return p.allValues(key, func(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) })
}

func (p pickSite) datedNames(key string) bool {
	return p.allValues(key, hasDateRun)
}

func (p pickSite) allValues(key string, ok func(string) bool) bool {
	for _, c := range p.cands {
		v, _ := c.Get(key)
		s, _ := v.(string)
		if !ok(s) {
			return false
		}
	}
	return true
}

// hasDateRun reports a string holding YYYY-MM or YYYYMMDD with a year in
// 1900–2199.
func hasDateRun(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if i > 0 && isDigitByte(s[i-1]) {
			continue
		}
		j := i
		for j < len(s) && isDigitByte(s[j]) {
			j++
		}
		if y := s[i:min(j, i+4)]; len(y) == 4 && (y[:2] == "19" || y[:2] == "20" || y[:2] == "21") {
			if j-i == 8 || j-i == 4 && j+3 <= len(s) && (s[j] == '-' || s[j] == '_' || s[j] == '.') && isDigitByte(s[j+1]) && isDigitByte(s[j+2]) {
				return true
			}
		}
		i = j
	}
	return false
}

// noteDirection reads the direction a note asks for, and of what: max
// for "newest", "latest", "highest"…, min for "oldest", "lowest",
// "cheapest"…; byTime is set for words of age, which order dates,
// versions and dated names, and clear for words of size, which order
// numbers. A note with both directions, or none, asks for nothing.
func noteDirection(notes string) (dir ast.Pick, byTime bool) {
	maxW, minW := false, false
	for _, w := range strings.FieldsFunc(notes, func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case "newest", "latest", "recent", "youngest", "newer":
			maxW, byTime = true, true
		case "oldest", "earliest", "older":
			minW, byTime = true, true
		case "highest", "largest", "biggest", "most", "maximum", "greatest", "top":
			maxW = true
		case "lowest", "smallest", "least", "fewest", "cheapest", "minimum":
			minW = true
		}
	}
	switch {
	case maxW && !minW:
		return ast.PickMax, byTime
	case minW && !maxW:
		return ast.PickMin, byTime
	}
	return "", false
}

// noteNames reports whether the note names a key: its words
// (`stockLevel` → "stock level") appear in the note.
func noteNames(notes, key string) bool {
	words := strings.ReplaceAll(snake(key), "_", " ")
	return words != "" && containsWord(notes, words)
}

// containsWord reports whether s holds w between word boundaries.
func containsWord(s, w string) bool {
	for i := 0; w != "" && i <= len(s)-len(w); {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		before := at == 0 || !words.IsIdentByte(s[at-1])
		after := at+len(w) == len(s) || !words.IsIdentByte(s[at+len(w)])
		if before && after {
			return true
		}
		i = at + 1
	}
	return false
}

// ruleKey reports whether a key can be a condition's or an ordering's key.
func ruleKey(k string) bool { return isPathKey(k) && !isDigits(k) && k != "it" }

// categoryWords are keys whose value says what kind of thing an element
// is.
var categoryWords = setOf(`type kind category class status state role group tier stage`)

// isCategoryKey reports a key naming a category: `type`, `entityType`,
// `item_kind`, `status`.
func isCategoryKey(k string) bool {
	// The key's last word, without building its snake form: after the
	// last '_', '-' or '.', or from its last upper-case letter.
	start := 0
	for i := len(k) - 1; i > 0; i-- {
		if c := k[i]; c == '_' || c == '-' || c == '.' {
			start = i + 1
			break
		} else if c >= 'A' && c <= 'Z' {
			start = i
			break
		}
	}
	w := k[start:]
	if len(w) > 8 {
		return false
	}
	var buf [8]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return categoryWords[string(buf[:len(w)])]
}

// scalarText is a string's value or a number's text; other values have
// none.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case jsondata.Number:
		return string(v), true
	}
	return "", false
}

// countEq counts the candidates whose key holds want.
func countEq(cands []*jsondata.Object, key string, want any) int {
	n := 0
	for _, c := range cands {
		if v, ok := c.Get(key); ok && sameScalar(v, want) {
			n++
		}
	}
	return n
}

// sameScalar compares two scalars as the runtime's `==` does: strings by
// text, numbers by value.
func sameScalar(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case jsondata.Number:
		b, ok := b.(jsondata.Number)
		return ok && numberKey([]byte(a)) == numberKey([]byte(b))
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	}
	return false
}

// condValue is a condition's value: the bound name as a hole, or the
// recorded scalar.
func condValue(v any, hole string) ast.Value {
	if hole != "" {
		var h holeLeaf
		return h.set(hole)
	}
	if n, ok := v.(jsondata.Number); ok {
		return &ast.Number{Raw: string(n)}
	}
	s, _ := v.(string)
	return &ast.String{Value: s}
}

// eqCond is `key == value`.
func eqCond(key string, v ast.Value) *ast.Condition {
	return &ast.Condition{Key: pathNode(key), Op: ast.CondEq, Value: v}
}

// orderingOf finds the ordering every candidate's key fits: numbers,
// then dates, versions, and names with digits (the last only for text or
// when asked). It reports false when some candidate lacks the key or the
// values mix kinds.
func orderingOf(cands []*jsondata.Object, key string, lines bool) (ast.Ordering, bool) {
	num, date, ver, name := true, true, true, true
	for _, c := range cands {
		v, ok := c.Get(key)
		if !ok {
			return "", false
		}
		switch v := v.(type) {
		case jsondata.Number:
			date, ver, name = false, false, false
		case string:
			if !looksNumeric(v) {
				num = false
			}
			if !looksDate(v) {
				date = false
			}
			if !looksVersion(v) {
				ver = false
			}
			if v == "" {
				name = false
			}
		default:
			return "", false
		}
	}
	switch {
	case num:
		return ast.OrderNumber, true
	case date:
		return ast.OrderDate, true
	case ver:
		return ast.OrderVersion, true
	case name:
		return ast.OrderName, true
	}
	return "", false
}

// uniqueExtreme reports whether the picked candidate is the only one with
// the largest, or the smallest, value of key.
func uniqueExtreme(cands []*jsondata.Object, picked int, key string, ord ast.Ordering) (isMax, isMin bool) {
	pv, _ := cands[picked].Get(key)
	// The picked key is read once, each candidate's once, by the
	// runtime's own reading, so the compiler and a replay agree.
	pk, ok := replay.ReadOrderKey(pv, ord)
	if !ok {
		return false, false
	}
	isMax, isMin = true, true
	for i, c := range cands {
		if i == picked {
			continue
		}
		v, _ := c.Get(key)
		k, ok := replay.ReadOrderKey(v, ord)
		if !ok {
			return false, false
		}
		switch replay.CompareOrderKeys(k, pk, ord) {
		case 0:
			return false, false
		case 1:
			isMax = false
		case -1:
			isMin = false
		}
		if !isMax && !isMin {
			return false, false
		}
	}
	return isMax, isMin
}

// parseDecimal reads a JSON number's text, or a string that is one.
func parseDecimal(s string) (*big.Rat, bool) {
	if !looksNumeric(s) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// looksDate is the shape a date key has before the runtime reads it
// (`2026-01-05…`): a cheap test, since most keys are not dates.
func looksDate(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, ok := replay.ReadOrderKey(s, ast.OrderDate)
	return ok
}

// looksVersion reports whether a key reads as a version of at least two
// dotted numbers (`v1.10.0`, `2.3`, `1.0.0-rc.1`): the runtime reads a
// lone number as a version too, but a lone number is no reason to order
// by version.
func looksVersion(s string) bool {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if t == "" || !isDigitByte(t[0]) || strings.IndexByte(t, '.') < 0 {
		return false
	}
	_, ok := replay.ReadOrderKey(s, ast.OrderVersion)
	return ok
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// jsonSource is `json.<path>` (`json` alone for an empty path).
func jsonSource(path string) ast.Source {
	src := ast.Source{Kind: ast.SourceJSON}
	if path != "" {
		src.Path = pathNode(path)
	}
	return src
}

// objects returns the elements of an array that are objects, or false
// when one is not (a rule reads fields).
func objects(arr []any) ([]*jsondata.Object, bool) {
	if len(arr) > maxCandidates {
		return nil, false
	}
	out := make([]*jsondata.Object, 0, len(arr))
	for _, e := range arr {
		o, ok := e.(*jsondata.Object)
		if !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, true
}

// jsonRule looks for the reason behind a bind that reads an element of a
// JSON array (one index in its path) and, when one explains the pick,
// turns the bind into a selection. It reports whether it did; a pick
// among several elements that nothing explains is marked unexplained.
func (c *compiler) jsonRule(bd *binding, segs []string, at func(n int) (any, bool), r *recentResult) bool {
	sent := r.sent
	idx := -1
	for i, sg := range segs {
		if isDigits(sg) {
			if idx >= 0 {
				return false
			}
			idx = i
		}
	}
	if idx < 0 || idx == len(segs)-1 {
		return false
	}
	for _, sg := range segs[idx+1:] {
		if !ruleKey(sg) {
			return false
		}
	}
	v, ok := at(idx)
	arr, isArr := v.([]any)
	if !ok || !isArr {
		return false
	}
	cands, ok := objects(arr)
	picked, err := strconv.Atoi(segs[idx])
	if !ok || err != nil || picked >= len(cands) {
		return false
	}
	p := pickSite{src: jsonSource(strings.Join(segs[:idx], ".")), cands: cands, picked: picked,
		field: strings.Join(segs[idx+1:], "."), known: c.knownFor(bd, sent), notes: c.pickNotes(bd)}
	sel, kind := induce(p)
	if sel == nil || !verifySel(sel, r, holesOf(sel, cands[picked]), bd.val) {
		bd.unexplained = len(cands) > 1
		return false
	}
	bd.sel, bd.rule = sel, kind
	bd.path, bd.array = "", false
	c.amongSeveral(bd, p)
	return true
}

// holesOf gives each name a selection's conditions hold the value the
// picked element has under the condition's key.
func holesOf(sel *ast.Selection, el *jsondata.Object) map[string]string {
	var out map[string]string
	for _, cd := range sel.Where {
		if str, ok := cd.Value.(*ast.String); ok && len(str.Holes) == 1 {
			v, _ := el.Get(cd.Key.String())
			if t, ok := scalarText(v); ok {
				if out == nil {
					out = map[string]string{}
				}
				out[str.Holes[0].Name] = t
			}
		}
	}
	return out
}

// lineRule looks for the reason behind a bind that takes a token from a
// row of a text listing: a pattern that counts lines, or one whose first
// match is one of several rows. When a rule explains the pick, the bind
// becomes a selection over the listing's lines.
func (c *compiler) lineRule(bd *binding, text string) {
	bd.settled = true
	// A pattern that matches once may only be narrowed by the value's own
	// shape (`WSH-…` among `BLT-…`, `NUT-…`): the row is still one of a
	// listing, and a rule that explains it replaces the pattern.
	narrow := !bd.positional && !matchesSeveral(bd.pattern, text)
	if dir, _ := noteDirection(c.pickNotes(bd)); narrow && dir == "" {
		// Only an ordering a note asks for is looked for then: no listing
		// is read for a bind no note points at.
		return
	}
	site, ok := listingSite(text, bd.raw)
	if !ok {
		return
	}
	p := pickSite{src: linesSource(site.pattern), cands: site.cands, picked: site.picked, field: site.capture,
		known: c.knownFor(bd, c.recent[bd.step].sent), notes: c.pickNotes(bd), lines: true}
	sel, kind := induce(p)
	if sel == nil || !verifySel(sel, c.recent[bd.step], holesOf(sel, site.cands[site.picked]), bd.val) {
		bd.unexplained = bd.positional
		return
	}
	if narrow && kind != ruleExtreme {
		// Unique by its shape already; only an ordering the note asks
		// for says more than the pattern does.
		return
	}
	bd.sel, bd.rule = sel, kind
	bd.pattern, bd.positional = "", false
	// A bind named only "value" takes its column's name (`sku`).
	if bd.name == "value" || strings.HasPrefix(bd.name, "value_") {
		if numbered := strings.HasPrefix(site.capture, "c") && isDigits(site.capture[1:]); !numbered && site.capture != "value" {
			c.binder.rename(bd, site.capture, c.steps[bd.step].n)
		}
	}
}

// matchesSeveral reports whether a pattern matches text more than once:
// its first match is then a position among rows.
func matchesSeveral(pattern, text string) bool {
	if len(text) > maxPatternText {
		return false
	}
	re, err := jsregex.CompileUncached(pattern)
	if err != nil {
		return false
	}
	m, err := re.FindStringMatch(text)
	if err != nil || m == nil {
		return false
	}
	m, err = re.FindNextMatch(m)
	return err == nil && m != nil
}

// knownFor returns the lookup of what the agent had when it picked the
// bind's value: a value bound from a result before the bind's source
// (by its name), or one the source step sent (sent).
func (c *compiler) knownFor(bd *binding, sent map[string]bool) func(string) (string, bool) {
	return func(v string) (string, bool) {
		if b := c.binder.byVal[v]; b != nil && b != bd && b.step < bd.step {
			return b.name, true
		}
		return "", sent[v]
	}
}

// pickNotes joins, lower-cased, the notes of a bind's source step and of
// the steps that use it.
func (c *compiler) pickNotes(bd *binding) string {
	var b strings.Builder
	for _, n := range c.steps[bd.step].notes {
		b.WriteString(strings.ToLower(n))
		b.WriteByte('\n')
	}
	for _, n := range c.binder.consumers[bd] {
		if n-1 >= 0 && n-1 < len(c.steps) {
			for _, note := range c.steps[n-1].notes {
				b.WriteString(strings.ToLower(note))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}
