package replay

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// Selections: a bind or an assert that picks from a collection by a rule
// (SPEC.md §5.1). The evaluation, in one pass over the elements plus a
// sort when the kept elements are joined in a `by` order:
//
//   - the source: the array at the json path (an error names the path and
//     what is there when it is absent or not an array), or the body's
//     non-blank lines ("\r\n" tolerated), each the line's text, or, with a
//     regex, only the lines it matches, each an object of its captures:
//     "0" the match, "1", "2", … the groups that took part, and each named
//     group under its name (and its number);
//   - `where`: every condition must hold. `it` is the element itself. A
//     key the element does not have makes the condition false for that
//     element, whatever the operator (`!=` and `not contains` included):
//     an element is kept only on what it holds. == and != are strict
//     equality; > < >= <= hold between two numbers only; matches needs a
//     string; contains is a substring of a string or an element (strictly
//     equal) of an array. A condition's string may hold template holes,
//     filled from the run's bindings as an action is filled, once, before
//     any element is read; an unbound name is an error naming it;
//   - `by`: the key is read in every kept element; one that lacks it, or
//     whose key the ordering cannot read, is an error naming the first
//     such element — never a silent pick;
//   - the pick; ties for max or min are an error naming both elements.
//
// Every failure is a divergence of the bind or assert, at its line.

// selectionBudget bounds the time one selection spends matching regexes
// over its elements (each match is bounded by jsregex.MatchTimeout too),
// so a slow pattern over a large collection fails the step instead of
// holding the run.
var selectionBudget = 5 * jsregex.MatchTimeout

// errBadBody is returned when the body is not JSON; the evaluation has
// reported that once already.
var errBadBody = errors.New("body is not JSON")

// selElem is one element of a selection's collection.
type selElem struct {
	v any
	// n is the element's index in the array, or for lines its 1-based
	// line number in the body.
	n int
}

// selector evaluates one selection.
type selector struct {
	sel *ast.Selection
	// src names the collection in messages: "json.items", or "the body's
	// lines".
	src string
	// path is the source's path with its `json.` prefix, for naming
	// elements ("json.items.3"); "" for lines.
	path string
}

// at names an element: "json.items.3" or "line 4".
func (s *selector) at(el selElem) string {
	if s.path == "" {
		return "line " + strconv.Itoa(el.n)
	}
	return s.path + "." + strconv.Itoa(el.n)
}

// keyName is the written key of a `by` or a condition.
func keyName(p ast.Path) string { return p.String() }

// selectValue evaluates a selection against the evaluation's observation.
// found is false only when the picked element lacks the trailing path (a
// JSONBind's "path not found"); err says why the selection could not be
// evaluated.
func (e *evaluation) selectValue(sel *ast.Selection) (v any, found bool, err error) {
	s := &selector{sel: sel}
	elems, err := e.collection(s)
	if err != nil {
		return nil, false, err
	}
	conds, err := e.conditions(sel)
	if err != nil {
		return nil, false, err
	}
	kept := elems[:0:0]
	if len(conds) == 0 {
		kept = elems
	} else {
		deadline := time.Now().Add(selectionBudget)
		for i, el := range elems {
			if i%1024 == 1023 && time.Now().After(deadline) {
				return nil, false, fmt.Errorf("where: the conditions took longer than %s over %d of %d elements of %s — a regex too slow for this many", selectionBudget, i, len(elems), s.src)
			}
			ok, err := holdsAll(conds, el.v)
			if err != nil {
				return nil, false, fmt.Errorf("where, at %s: %v", s.at(el), err)
			}
			if ok {
				kept = append(kept, el)
			}
		}
	}
	var keys []orderKey
	var cmpKey func(a, b *orderKey) int
	if sel.HasBy || sel.Pick == ast.PickMax || sel.Pick == ast.PickMin {
		keys, cmpKey, err = s.orderKeys(kept)
		if err != nil {
			return nil, false, err
		}
	}
	switch sel.Pick {
	case ast.PickCount:
		return jsondata.Number(strconv.Itoa(len(kept))), true, nil
	case ast.PickSum:
		return s.sum(kept)
	case ast.PickJoin:
		if keys != nil {
			order := make([]int, len(kept))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmpKey(&keys[a], &keys[b]) })
			sorted := make([]selElem, len(kept))
			for i, j := range order {
				sorted[i] = kept[j]
			}
			kept = sorted
		}
		return s.join(kept)
	}
	var pick selElem
	switch {
	case len(kept) == 0:
		return nil, false, errors.New(s.none(len(elems)))
	case sel.Pick == ast.PickOnly:
		if len(kept) > 1 {
			return nil, false, fmt.Errorf("only: %d elements are kept, not one (the first two are %s and %s) — add a where that tells them apart",
				len(kept), s.at(kept[0]), s.at(kept[1]))
		}
		pick = kept[0]
	case keys != nil:
		i, err := s.extreme(kept, keys, cmpKey)
		if err != nil {
			return nil, false, err
		}
		pick = kept[i]
	case sel.Pick == ast.PickLast:
		pick = kept[len(kept)-1]
	default:
		pick = kept[0]
	}
	v, found = Resolve(pick.v, sel.Field)
	return v, found, nil
}

// none explains an empty selection.
func (s *selector) none(total int) string {
	pick := string(s.sel.Pick)
	switch {
	case total == 0 && s.path == "" && s.sel.Source.Pattern != "":
		return pick + ": no line of the body matches /" + s.sel.Source.Pattern + "/"
	case total == 0 && s.path == "":
		return pick + ": the body has no line that is not blank"
	case total == 0:
		return pick + ": " + s.src + " is an empty array"
	}
	return fmt.Sprintf("%s: no element of %s (%d) is kept by the where clause", pick, s.src, total)
}

// extreme returns the index in kept of the element the pick takes by its
// key: max the highest, min and first the lowest, last the highest with
// ties going to the later element. Ties for max and min are an error.
func (s *selector) extreme(kept []selElem, keys []orderKey, cmpKey func(a, b *orderKey) int) (int, error) {
	high := s.sel.Pick == ast.PickMax || s.sel.Pick == ast.PickLast
	best, tie := 0, -1
	for i := 1; i < len(kept); i++ {
		c := cmpKey(&keys[i], &keys[best])
		if !high {
			c = -c
		}
		switch {
		case c > 0, c == 0 && s.sel.Pick == ast.PickLast:
			best, tie = i, -1
		case c == 0 && tie < 0:
			tie = i
		}
	}
	if tie >= 0 && (s.sel.Pick == ast.PickMax || s.sel.Pick == ast.PickMin) {
		key := "it"
		if s.sel.HasBy {
			key = keyName(s.sel.By)
		}
		return 0, fmt.Errorf("two elements tie for %s %s: %s and %s (both %s) — add a where or a finer key",
			s.sel.Pick, key, s.at(kept[best]), s.at(kept[tie]), show(keys[best].v, true, lastName(s.sel.By)))
	}
	return best, nil
}

// collection reads the selection's elements.
func (e *evaluation) collection(s *selector) ([]selElem, error) {
	src := s.sel.Source
	if src.Kind == ast.SourceLines {
		s.src = "the body's lines"
		if src.Pattern != "" {
			s.src = "the body's lines matching /" + src.Pattern + "/"
		}
		return bodyLines(e.obs.Body, src.Pattern)
	}
	root, ok := e.json()
	if !ok {
		return nil, errBadBody
	}
	s.path = "json"
	if len(src.Path.Elements) > 0 {
		s.path += "." + src.Path.String()
	}
	s.src = s.path
	v, found := Resolve(root, src.Path)
	if !found {
		return nil, errors.New(s.path + " is not in the result: " + missingAt(root, src.Path))
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not an array", s.path, words.Clip(a(typed(v, true, memberOf(root, src.Path))), 120))
	}
	elems := make([]selElem, len(arr))
	for i, x := range arr {
		elems[i] = selElem{v: x, n: i}
	}
	return elems, nil
}

// a puts an article before a typed value ("an object {…}", "a string
// "x"", "null").
func a(s string) string {
	switch {
	case s == "null":
		return s
	case strings.HasPrefix(s, "array"), strings.HasPrefix(s, "object"):
		return "an " + s
	}
	return "a " + s
}

// missingAt says where a path stops resolving: the longest prefix that is
// there, and what it holds.
func missingAt(root any, p ast.Path) string {
	cur, at := root, "json"
	for i, el := range p.Elements {
		next, ok := Resolve(cur, ast.Path{Elements: p.Elements[i : i+1]})
		if !ok {
			switch c := cur.(type) {
			case *jsondata.Object:
				keys := make([]string, 0, min(len(c.Members), 8))
				for _, m := range c.Members[:min(len(c.Members), 8)] {
					keys = append(keys, m.Key)
				}
				more := ""
				if len(c.Members) > 8 {
					more = fmt.Sprintf(" and %d more", len(c.Members)-8)
				}
				if len(keys) == 0 {
					return fmt.Sprintf("%s is an empty object, with no %s", at, el.Name)
				}
				return fmt.Sprintf("%s is an object with no %s (its members: %s%s)", at, el.Name, words.Clip(strings.Join(keys, ", "), 200), more)
			case []any:
				return fmt.Sprintf("%s is an array of %d, with no element %s", at, len(c), el.Name)
			}
			return fmt.Sprintf("%s is %s, which has no members", at, words.Clip(a(typed(cur, true, "")), 120))
		}
		cur, at = next, at+"."+el.Name
	}
	return at + " is missing"
}

// bodyLines splits a body into its non-blank lines, or, with a pattern,
// the captures of the lines it matches.
func bodyLines(body, pattern string) ([]selElem, error) {
	var re *regexp2.Regexp
	var keys []captureKey
	if pattern != "" {
		var err error
		if re, err = jsregex.Compile(pattern); err != nil {
			return nil, fmt.Errorf("invalid regex /%s/: %v", pattern, err)
		}
		keys = captureKeys(re)
	}
	var out []selElem
	n := 0
	deadline := time.Now().Add(selectionBudget)
	for rest := body; rest != ""; {
		if re != nil && n%1024 == 1023 && time.Now().After(deadline) {
			return nil, fmt.Errorf("/%s/ took longer than %s over the first %d lines of the body — a regex too slow for this many", pattern, selectionBudget, n)
		}
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		n++
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if re == nil {
			out = append(out, selElem{v: line, n: n})
			continue
		}
		m, err := re.FindStringMatch(line)
		if err != nil {
			return nil, fmt.Errorf("/%s/ on line %d: %v", pattern, n, err)
		}
		if m != nil {
			out = append(out, selElem{v: captures(keys, m), n: n})
		}
	}
	return out, nil
}

// captureKey is a group's number, and its name for a named group ("" for
// the others).
type captureKey struct {
	n          int
	num, named string
}

// captureKeys lists the regex's groups.
func captureKeys(re *regexp2.Regexp) []captureKey {
	nums := re.GetGroupNumbers()
	out := make([]captureKey, 0, len(nums))
	for _, n := range nums {
		k := captureKey{n: n, num: strconv.Itoa(n)}
		if name := re.GroupNameFromNumber(n); name != "" && name != k.num {
			k.named = name
		}
		out = append(out, k)
	}
	return out
}

// captures is a match as an object: "0" the whole match, then each group
// that took part under its number, and a named group under its name too.
func captures(keys []captureKey, m *regexp2.Match) *jsondata.Object {
	o := &jsondata.Object{Members: make([]jsondata.Member, 0, len(keys))}
	for _, k := range keys {
		g := m.GroupByNumber(k.n)
		if g == nil || len(g.Captures) == 0 {
			continue
		}
		o.Members = append(o.Members, jsondata.Member{Key: k.num, Value: g.String()})
		if k.named != "" {
			o.Members = append(o.Members, jsondata.Member{Key: k.named, Value: g.String()})
		}
	}
	return o
}

// condition is a `where` condition ready to test elements: its value
// filled, its regex compiled.
type condition struct {
	c    *ast.Condition
	want any
	re   *regexp2.Regexp
}

// conditions fills and compiles the selection's conditions.
func (e *evaluation) conditions(sel *ast.Selection) ([]condition, error) {
	out := make([]condition, 0, len(sel.Where))
	for _, c := range sel.Where {
		cd := condition{c: c}
		if c.Op == ast.CondMatches {
			re, err := jsregex.Compile(c.Pattern)
			if err != nil {
				return nil, fmt.Errorf("where %s matches: invalid regex /%s/: %v", keyName(c.Key), c.Pattern, err)
			}
			cd.re = re
		} else {
			v, err := e.filled(c.Value)
			if err != nil {
				return nil, fmt.Errorf("where %s %s: %v", keyName(c.Key), c.Op, err)
			}
			cd.want = v
		}
		out = append(out, cd)
	}
	return out, nil
}

// filled is a scalar with its template holes filled from the run's
// bindings: a string that is exactly one hole takes the bound value with
// its JSON type, as an action's leaf does.
func (e *evaluation) filled(v ast.Value) (any, error) {
	s, ok := v.(*ast.String)
	if !ok || len(s.Holes) == 0 {
		return scalar(v), nil
	}
	f := e.fill
	if f == nil {
		f = &filler{env: newScope(), today: dayOf(time.Now())}
	}
	if val, ok := f.wholeValue(s); ok {
		return val, nil
	}
	out, err := f.appendFilled(nil, s)
	if err != nil {
		return nil, err
	}
	return string(out), nil
}

// holdsAll reports whether every condition holds for an element.
func holdsAll(conds []condition, el any) (bool, error) {
	for i := range conds {
		ok, err := conds[i].holds(el)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// holds tests one element. A key the element lacks makes it false.
func (c *condition) holds(el any) (bool, error) {
	v, found := el, true
	if !ast.IsIt(c.c.Key) {
		v, found = Resolve(el, c.c.Key)
	}
	if !found {
		return false, nil
	}
	switch c.c.Op {
	case ast.CondEq:
		return jsondata.StrictEqual(v, c.want), nil
	case ast.CondNe:
		return !jsondata.StrictEqual(v, c.want), nil
	case ast.CondGt, ast.CondLt, ast.CondGe, ast.CondLe:
		return compareValues(v, true, ast.Op(c.c.Op), c.want), nil
	case ast.CondMatches:
		s, ok := v.(string)
		if !ok {
			return false, nil
		}
		return c.re.MatchString(s)
	case ast.CondContains, ast.CondNotContains:
		has, ok := contains(v, c.want)
		if !ok {
			return false, nil
		}
		return has == (c.c.Op == ast.CondContains), nil
	}
	return false, fmt.Errorf("unknown operator %q", c.c.Op)
}

// contains is a string's substring or an array's element; ok is false
// when v is neither a string nor an array (or a string is searched for a
// value that is not one).
func contains(v, want any) (has, ok bool) {
	switch v := v.(type) {
	case string:
		w, isString := want.(string)
		return isString && strings.Contains(v, w), isString
	case []any:
		for _, x := range v {
			if jsondata.StrictEqual(x, want) {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

// sum adds up the trailing path's numbers in every kept element, exactly
// (as decimals: 10.10 + 20.20 is 30.30) when every number is a plain
// decimal, as float64 otherwise.
func (s *selector) sum(kept []selElem) (any, bool, error) {
	nums := make([]jsondata.Number, len(kept))
	for i, el := range kept {
		v, found := Resolve(el.v, s.sel.Field)
		n, ok := v.(jsondata.Number)
		if !found || !ok {
			return nil, false, fmt.Errorf("sum: %s", s.notA(el, v, found, "a number"))
		}
		nums[i] = n
	}
	if total, ok := sumInt64(nums); ok {
		return total, true, nil
	}
	if total, ok := sumRat(nums); ok {
		return total, true, nil
	}
	var f float64
	for _, n := range nums {
		f += n.Float()
	}
	return jsondata.Number(strconv.FormatFloat(f, 'g', -1, 64)), true, nil
}

// pow10 are the powers of ten an int64 holds.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// sumInt64 adds plain decimals as scaled int64s; false when one is not a
// plain decimal or the sum would overflow.
func sumInt64(nums []jsondata.Number) (jsondata.Number, bool) {
	var total int64
	scale := 0
	for _, n := range nums {
		text := string(n)
		d, plain := decimals(text)
		if !plain || d > 18 {
			return "", false
		}
		digits := strings.Replace(text, ".", "", 1)
		if len(strings.TrimLeft(digits, "-0")) > 18 {
			return "", false
		}
		m, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return "", false
		}
		if d > scale {
			var ok bool
			if total, ok = mulPow10(total, d-scale); !ok {
				return "", false
			}
			scale = d
		} else if m, plain = mulPow10(m, scale-d); !plain {
			return "", false
		}
		sum := total + m
		if (m > 0 && sum < total) || (m < 0 && sum > total) {
			return "", false
		}
		total = sum
	}
	if scale == 0 {
		return jsondata.Number(strconv.FormatInt(total, 10)), true
	}
	neg := total < 0
	digits := strconv.FormatInt(total, 10)
	if neg {
		digits = digits[1:]
	}
	for len(digits) <= scale {
		digits = "0" + digits
	}
	out := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	if neg {
		out = "-" + out
	}
	return jsondata.Number(out), true
}

// mulPow10 is v·10^k, false on overflow.
func mulPow10(v int64, k int) (int64, bool) {
	if k == 0 || v == 0 {
		return v, true
	}
	if k >= len(pow10) {
		return 0, false
	}
	r := v * pow10[k]
	if r/pow10[k] != v {
		return 0, false
	}
	return r, true
}

// sumRat adds plain decimals exactly at any size; false when one is not a
// plain decimal.
func sumRat(nums []jsondata.Number) (jsondata.Number, bool) {
	total := new(big.Rat)
	var r big.Rat
	scale := 0
	for _, n := range nums {
		d, plain := decimals(string(n))
		if !plain {
			return "", false
		}
		if _, ok := r.SetString(string(n)); !ok {
			return "", false
		}
		total.Add(total, &r)
		scale = max(scale, d)
	}
	return jsondata.Number(total.FloatString(scale)), true
}

// decimals returns the digits after a plain decimal number's point, and
// whether it is one (no exponent, at most 40 digits).
func decimals(n string) (int, bool) {
	if len(n) > 41 || strings.ContainsAny(n, "eE") {
		return 0, false
	}
	if i := strings.IndexByte(n, '.'); i >= 0 {
		return len(n) - i - 1, true
	}
	return 0, true
}

// join joins the trailing path's values of the kept elements: strings as
// they are, numbers as written.
func (s *selector) join(kept []selElem) (any, bool, error) {
	sep := ","
	if s.sel.HasSep {
		sep = s.sel.Sep
	}
	var b strings.Builder
	for i, el := range kept {
		v, found := Resolve(el.v, s.sel.Field)
		var text string
		switch v := v.(type) {
		case string:
			text = v
		case jsondata.Number:
			text = string(v)
		default:
			return nil, false, fmt.Errorf("join: %s", s.notA(el, v, found, "a string or a number"))
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(text)
	}
	return b.String(), true, nil
}

// notA says that an element's value is missing or not of the type a
// pick needs.
func (s *selector) notA(el selElem, v any, found bool, want string) string {
	what := s.at(el)
	if len(s.sel.Field.Elements) > 0 {
		if !found {
			return fmt.Sprintf("%s has no %s", what, s.sel.Field.String())
		}
		what += "." + s.sel.Field.String()
	}
	return fmt.Sprintf("%s is %s, not %s", what, words.Clip(a(typed(v, true, lastName(s.sel.Field))), 120), want)
}

// lastName is the last segment of a path, "" for none: the member a value
// sits under, for redaction.
func lastName(p ast.Path) string {
	if len(p.Elements) == 0 {
		return ""
	}
	return p.Elements[len(p.Elements)-1].Name
}

// checkSelection evaluates a selection assert, returning nil when it holds
// (or when the body is not JSON, which is reported once already).
func (e *evaluation) checkSelection(a *ast.SelectionAssert) *Failure {
	v, found, err := e.selectValue(a.Sel)
	switch {
	case err == errBadBody:
		return nil
	case err != nil:
		return failed("", err.Error())
	}
	key := selectionMember(a.Sel)
	switch a.Kind {
	case ast.SelIs:
		if isType(v, found, a.Type) {
			return nil
		}
		return failed(string(a.Type), typed(v, found, key))
	case ast.SelMatches:
		return checkMatches(v, found, a.Pattern, func() string { return key })
	}
	want, err := e.filled(a.Value)
	if err != nil {
		return failed("", err.Error())
	}
	if compareValues(v, found, a.Op, want) {
		return nil
	}
	return failed(string(a.Op)+" "+jsondata.String(want), show(v, found, key))
}

// selectionMember is the member a selection's value sits under, for
// redaction: the last segment of its trailing path, else of its source.
func selectionMember(sel *ast.Selection) string {
	if k := lastName(sel.Field); k != "" {
		return k
	}
	return lastName(sel.Source.Path)
}

// SelectionValue evaluates a selection against an observation outside a
// run: a condition's variable hole is unbound (an error). found is false
// when the picked element lacks the trailing path.
func SelectionValue(obs *tool.Observation, sel *ast.Selection) (v any, found bool, err error) {
	e := &evaluation{obs: obs}
	v, found, err = e.selectValue(sel)
	if err == errBadBody {
		_, jerr := obs.JSON()
		err = fmt.Errorf("the body is not JSON: %v", jerr)
	}
	return v, found, err
}
