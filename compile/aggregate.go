package compile

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/tool/jsondata"
)

// Values the agent computed from a collection (#33, point 2): a total,
// or the ids of the matching rows joined, that no earlier result holds
// as such. The compiler derives the rule that reproduces the value from
// the recorded result — `sum(json where status == "overdue").amount`,
// `join(json where status == "overdue" sep ",").id` — trying the whole
// collection, then each `where` a string field's value makes; the bind
// then computes it again at replay, so one more overdue invoice gives the
// new total instead of the recorded one.
//
// And preconditions (point 3): where a writing step creates what a search
// just before found nothing of, the search asserts that nothing of it
// exists (`count(json.entities where name == "Acme Corp") == 0`), so a
// replay stops where the agent would have done something else.

const (
	// aggResults is how many of the latest results a computed value is
	// looked for in.
	aggResults = 3
	// maxAggWork bounds the element visits of one value's search.
	maxAggWork = 200000
	// maxAggValues is the most distinct values of one field a `where`
	// is tried with.
	maxAggValues = 16
)

// docArray is an array of objects in a result: the document itself, or a
// member of its root object.
type docArray struct {
	path string
	objs []*jsondata.Object
}

// arrays returns the arrays of objects a kept result holds, parsing the
// document once.
func (r *recentResult) arrays() []docArray {
	if r.parsed {
		return r.arrs
	}
	r.parsed = true
	if len(r.doc.text) == 0 {
		return nil
	}
	root, err := jsondata.Parse(string(r.doc.text))
	if err != nil {
		return nil
	}
	r.root = root
	switch v := root.(type) {
	case []any:
		if objs, ok := objects(v); ok {
			r.arrs = append(r.arrs, docArray{objs: objs})
		}
	case *jsondata.Object:
		for _, m := range v.Members {
			arr, ok := m.Value.([]any)
			if !ok || !ruleKey(m.Key) {
				continue
			}
			if objs, ok := objects(arr); ok {
				r.arrs = append(r.arrs, docArray{path: m.Key, objs: objs})
			}
		}
	}
	return r.arrs
}

// latest returns the kept results of the last aggResults steps before
// st, newest first.
func (c *compiler) latest(st *step) []*recentResult {
	var out []*recentResult
	for i := len(c.recentOrder) - 1; i >= 0 && len(out) < aggResults; i-- {
		if r := c.recent[c.recentOrder[i]]; r != nil && r.step < st.n-1 {
			out = append(out, r)
		}
	}
	return out
}

// filter is a condition a collection's rows can be split by — `key ==
// val` on a string field, or none for the whole collection — with the
// rows it keeps.
type filter struct {
	key, val string
	rows     []*jsondata.Object
}

// cond is the filter's condition node, nil for the whole collection.
func (f filter) cond() *ast.Condition {
	if f.key == "" {
		return nil
	}
	return eqCond(f.key, &ast.String{Value: f.val})
}

// filters lists the whole collection, then, for each string field of the
// first row, each of its values (at most maxAggValues distinct) with the
// rows it keeps.
func filters(objs []*jsondata.Object, work *int) []filter {
	out := []filter{{rows: objs}}
	if len(objs) < 3 {
		// A where that keeps two rows or more and not all of them needs
		// three.
		return out
	}
	members := objs[0].Members
	if len(members) > maxRuleFields {
		members = members[:maxRuleFields]
	}
	for _, m := range members {
		if _, ok := m.Value.(string); !ok || !ruleKey(m.Key) {
			continue
		}
		var order []string
		groups := map[string][]*jsondata.Object{}
		for _, o := range objs {
			*work++
			v, _ := o.Get(m.Key)
			s, ok := v.(string)
			if !ok {
				continue
			}
			if _, seen := groups[s]; !seen {
				order = append(order, s)
			}
			groups[s] = append(groups[s], o)
		}
		if len(order) < 2 || len(order) > maxAggValues {
			continue
		}
		for _, v := range order {
			out = append(out, filter{key: m.Key, val: v, rows: groups[v]})
		}
		if *work > maxAggWork {
			break
		}
	}
	return out
}

// sumRef is a sum one of a result's collections gives.
type sumRef struct {
	path  string
	f     filter
	field string
}

// sumsByValue returns, by their value in fixed point (fixedDecimal), the
// sums over two or more rows of each number field of the result's
// collections, over each filter: made once per result, so a number the
// agent sends is looked up, not searched for.
func (r *recentResult) sumsByValue() map[int64]sumRef {
	if r.sums != nil {
		return r.sums
	}
	r.sums = map[int64]sumRef{}
	work := 0
	for _, a := range r.arrays() {
		if len(a.objs) < 2 {
			continue
		}
		for _, f := range filters(a.objs, &work) {
			if len(f.rows) < 2 || f.key != "" && len(f.rows) == len(a.objs) {
				continue
			}
			for _, m := range f.rows[0].Members {
				if _, ok := m.Value.(jsondata.Number); !ok || !ruleKey(m.Key) {
					continue
				}
				var total int64
				ok := true
				for _, o := range f.rows {
					work++
					v, _ := o.Get(m.Key)
					n, isNum := v.(jsondata.Number)
					x, good := fixedDecimal(string(n))
					if !isNum || !good || (x > 0 && total > maxFixed-x) || (x < 0 && total < -maxFixed-x) {
						ok = false
						break
					}
					total += x
				}
				if ok {
					if _, have := r.sums[total]; !have {
						r.sums[total] = sumRef{path: a.path, f: f, field: m.Key}
					}
				}
				if work > maxAggWork {
					return r.sums
				}
			}
		}
	}
	return r.sums
}

// fixedScale is the fixed point of sums: six decimal places; maxFixed
// the largest magnitude a sum may reach.
const (
	fixedScale = 1_000_000
	maxFixed   = 1 << 62
)

// fixedDecimal reads a JSON number with at most six decimal places and no
// exponent as an integer count of millionths; ok is false for any other.
func fixedDecimal(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || len(frac) > 6 || !isDigits(whole) || frac != "" && !isDigits(frac) {
		return 0, false
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac, 10, 64)
		for i := len(frac); i < 6; i++ {
			f *= 10
		}
	}
	v := w*fixedScale + f
	if neg {
		v = -v
	}
	return v, true
}

// joinRule finds the rows whose string field, in order, is values.
func joinRule(arrs []docArray, values []string, sep string) *ast.Selection {
	work := 0
	for _, a := range arrs {
		if len(a.objs) < 2 {
			continue
		}
		for _, f := range filters(a.objs, &work) {
			if len(f.rows) != len(values) || f.key != "" && len(f.rows) == len(a.objs) {
				continue
			}
			for _, m := range f.rows[0].Members {
				if _, ok := m.Value.(string); !ok || !ruleKey(m.Key) {
					continue
				}
				ok := true
				for i, o := range f.rows {
					work++
					v, _ := o.Get(m.Key)
					if s, isStr := v.(string); !isStr || s != values[i] {
						ok = false
						break
					}
				}
				if ok {
					s := aggSel(ast.PickJoin, a.path, f.cond(), m.Key, sep, sep != ",")
					sortedJoin(s, values)
					return s
				}
			}
			if work > maxAggWork {
				return nil
			}
		}
	}
	return nil
}

func aggSel(pick ast.Pick, path string, cond *ast.Condition, field, sep string, hasSep bool) *ast.Selection {
	s := &ast.Selection{Pick: pick, Source: jsonSource(path), Field: pathNode(field), Sep: sep, HasSep: hasSep}
	if cond != nil {
		s.Where = []*ast.Condition{cond}
	}
	return s
}

// aggregate looks for a rule that computes a number the step sends and
// no result held (whole, or a token of a string: raw is its text); it
// returns the bind's name, or "".
func (c *compiler) aggregate(st *step, raw, member string) string {
	if !looksNumeric(raw) || !strings.ContainsAny(raw, ".") && len(raw) < minLiteralLen || notComputed(member) {
		return ""
	}
	key, ok := fixedDecimal(raw)
	if !ok {
		return ""
	}
	for _, r := range c.latest(st) {
		ref, ok := r.sumsByValue()[key]
		if !ok {
			continue
		}
		sel := aggSel(ast.PickSum, ref.path, ref.f.cond(), ref.field, "", false)
		if verifySel(sel, r, nil, raw) {
			return c.aggBind(st, r, sel, 'n', raw, []string{snake(member), "total"})
		}
	}
	return ""
}

// joined looks, in a string the step sends, for runs of two or more
// name-like tokens joined by the same short separator that are the
// matching rows' field joined; it returns them as hole parts.
func (c *compiler) joined(st *step, s string, spans []span) []holePart {
	var out []holePart
	for i := 0; i+1 < len(spans); {
		sep := s[spans[i].end:spans[i+1].start]
		j := i + 1
		for j+1 < len(spans) && s[spans[j].end:spans[j+1].start] == sep {
			j++
		}
		if j > i && len(sep) <= 3 && strings.TrimSpace(sep) != "" && !strings.ContainsAny(sep, "'\"") {
			values := make([]string, 0, j-i+1)
			named := true
			for k := i; k <= j; k++ {
				tok := s[spans[k].start:spans[k].end]
				named = named && isNameToken(tok)
				values = append(values, tok)
			}
			if named {
				for _, r := range c.latest(st) {
					if sel := joinRule(r.arrays(), values, sep); sel != nil && verifySel(sel, r, nil, strings.Join(values, sep)) {
						name := c.aggBind(st, r, sel, 's', strings.Join(values, sep), []string{snake(sel.Field.String()) + "s", "values"})
						out = append(out, holePart{span: span{spans[i].start, spans[j].end}, name: name})
						break
					}
				}
			}
		}
		i = j
	}
	return out
}

// aggBind makes (or finds) the bind of a computed value on the step whose
// result it is computed from.
func (c *compiler) aggBind(st *step, r *recentResult, sel *ast.Selection, kind byte, val string, names []string) string {
	b := c.binder
	key := strconv.Itoa(r.step) + " " + format.Selection(sel)
	if bd := b.aggs[key]; bd != nil {
		return bd.name
	}
	var cands []string
	for _, n := range names {
		if n != "" && !genericKeys[n] {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		cands = []string{"value"}
	}
	bd := &binding{step: r.step, kind: kind, raw: val, val: val, sel: sel, settled: true}
	if kind == 's' {
		bd.raw = jsondata.String(val)
	}
	bd.name = b.fresh(cands, c.steps[r.step].n)
	if b.aggs == nil {
		b.aggs = map[string]*binding{}
	}
	b.aggs[key] = bd
	b.all = append(b.all, bd)
	c.noteBind(bd)
	// A sum or a join over no rows sends nothing the agent would have
	// sent; a count of none is still a count ("0 open bugs").
	if sel.Pick == ast.PickSum || sel.Pick == ast.PickJoin {
		c.notEmpty(c.steps[r.step], sel)
	}
	from := c.steps[r.step]
	from.binds = append(from.binds, bd)
	st.sent = append(st.sent, val)
	return bd.name
}

// precondition notes, for a writing step that sends a string a search
// just before asked for and found nothing of, the assert that nothing of
// it exists on the search: the agent created it because it was absent.
func (c *compiler) precondition(st *step, l argLeaf) {
	if l.num || l.template || !l.eligible || isRedacted(l.raw) || c.effect(st) == ast.EffectRead {
		return
	}
	for _, r := range c.latest(st) {
		from := c.steps[r.step]
		if !r.sent[l.raw] || c.effect(from) != ast.EffectRead {
			continue
		}
		arrs := r.arrays()
		if len(arrs) == 0 {
			return
		}
		a := arrs[0]
		key := ""
		if l.member != "" && ruleKey(l.member) {
			key = l.member
		}
		if len(a.objs) > 0 {
			if _, ok := a.objs[0].Get(key); !ok {
				key = ""
			}
		}
		if r.firstStrings()[l.raw] {
			return // it existed
		}
		if key == "" && (len(a.objs) > 0 || a.path != "" && l.member == "") {
			return
		}
		if a.path == "" && len(a.objs) == 0 {
			// An empty answer to a query that named it: nothing at all.
			key = ""
		}
		sel := &ast.Selection{Pick: ast.PickCount, Source: jsonSource(a.path)}
		if key != "" {
			sel.Where = []*ast.Condition{eqCond(key, &ast.String{Value: l.raw})}
		}
		from.preNone(sel)
		return
	}
}

// notComputedWords are the words of a key whose number the agent chooses
// rather than computes: a page, a limit, an id, a port.
var notComputedWords = setOf(`page pages limit offset per size cursor id ids index port timeout
	skip take top version year month day hour minute second seconds ms`)

// notComputed reports an argument key naming a number the agent chose
// (`page`, `limit`, `per_page`, `userId`), which is never looked up as a
// sum.
func notComputed(member string) bool {
	if member == "" {
		return false
	}
	for w := range strings.SplitSeq(snake(member), "_") {
		if notComputedWords[w] {
			return true
		}
	}
	return false
}

// firstStrings is the set of the string fields' values of the elements
// of the result's first collection, made once: a precondition looks a
// value up in it rather than walking the elements for every argument.
func (r *recentResult) firstStrings() map[string]bool {
	if r.strs != nil {
		return r.strs
	}
	r.strs = map[string]bool{}
	if arrs := r.arrays(); len(arrs) > 0 {
		for _, o := range arrs[0].objs {
			for _, m := range o.Members {
				if s, ok := m.Value.(string); ok {
					r.strs[s] = true
				}
			}
		}
	}
	return r.strs
}
