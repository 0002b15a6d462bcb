package compile

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// binding is one bind on a source step — `name = json.<path>`, or
// `name = body match /pattern/` for a token of a text result — and the
// steps that use it.
type binding struct {
	name string
	path string // dotted; "" for a body match
	// raw is the recorded value's text, for the step's assert on it;
	// val is the value itself (a string decoded).
	raw string
	val string
	// pattern is a body match bind's pattern; positional when it counts
	// lines.
	pattern string
	// selector, for a bind that reads an element of a list by its field
	// rather than its position, says which: `entityType is "customer"`.
	selector string
	step     int // the source step, as an index into the compiler's steps
	// kind is the recorded value's JSON kind ('s' or 'n').
	kind       byte
	array      bool // the path crosses an array
	positional bool
	// settled is set once a pick bind's selector and element checks
	// are decided.
	settled bool
	// sel, when set, is the selection that picks the value by the
	// reason the agent had (rule says which kind); path and pattern are
	// then empty.
	sel  *ast.Selection
	rule ruleKind
	// unexplained is set for a pick among several candidates that no
	// rule explains: the position stays, and a question says so.
	unexplained bool
}

// volatile reports whether the bound value changes from run to run, by
// its key or its shape.
func (bd *binding) volatile() bool {
	last := bd.path
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	return isVolatileKey(last) || isVolatileText(bd.raw)
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// binder hands out one binding per source path and keeps names unique.
type binder struct {
	taken map[string]bool
	// consumers are, for each bind that reads an array position, the
	// numbers of the steps that use it, in order, without repeats: its
	// question names them.
	consumers map[*binding][]int
	next      map[string]int // per stem, how many numbered names were tried
	all       []*binding     // in the order they were made
	// byVal holds the first bind made of each value, for the rules that
	// name a value the agent had.
	byVal map[string]*binding
	// aggs holds the binds of computed values, by source step and rule.
	aggs map[string]*binding
}

// newBinder returns a binder for a trace of n steps: its names are
// made room for up front, about one a step.
func newBinder(n int) *binder {
	return &binder{taken: make(map[string]bool, n), next: map[string]int{}, consumers: map[*binding][]int{}}
}

// use returns the binding for src, making it on first use, and records
// that step n consumes it; member is the argument key it is sent under,
// which may name it.
func (b *binder) use(steps []*step, src *source, n int, member string) *binding {
	bd := src.bound
	if bd == nil {
		bd = &binding{step: int(src.step), array: src.array, kind: src.kind, raw: src.raw, val: src.raw}
		if !src.text && src.kind == 's' {
			bd.val = unquoteRaw(src.raw)
		}
		var cands []string
		if m := singular(snake(member)); m != "" && !genericKeys[m] && !genericLeafKeys[m] && !grammar.IsReservedName(m) && !strings.HasPrefix(m, "today") {
			cands = append(cands, m)
		}
		if src.text {
			bd.pattern, bd.positional = src.pattern, src.positional
			switch {
			case src.label != "" && src.field:
				// `version: 4.12.0` is the version.
				cands = append(cands, src.label, src.label+"_value")
			case src.label != "":
				cands = append(cands, src.label+"_name", src.label)
			}
			cands = append(cands, "value")
		} else {
			bd.path = src.dotted()
			cands = append(cands, bindNames(src.path)...)
		}
		bd.name = b.fresh(cands, steps[int(src.step)].n)
		src.bound = bd
		b.all = append(b.all, bd)
		if b.byVal == nil {
			b.byVal = map[string]*binding{}
		}
		if b.byVal[bd.val] == nil {
			b.byVal[bd.val] = bd
		}
		st := steps[int(src.step)]
		st.binds = append(st.binds, bd)
	}
	if bd.array || bd.positional || bd.pattern != "" {
		if ns := b.consumers[bd]; len(ns) == 0 || ns[len(ns)-1] != n {
			b.consumers[bd] = append(ns, n)
		}
	}
	return bd
}

// rename gives a bind, not yet used in any hole, a better name.
func (b *binder) rename(bd *binding, name string, step int) {
	if !b.taken[name] && !grammar.IsReservedName(name) {
		delete(b.taken, bd.name)
		bd.name = b.fresh([]string{name}, step)
	}
}

// fresh returns the first candidate that is neither taken nor reserved;
// when all are, the first candidate qualified by the step it comes from
// (`name_step4`), and only then numbered (_2, _3…).
func (b *binder) fresh(cands []string, step int) string {
	free := func(n string) bool { return !b.taken[n] && !grammar.IsReservedName(n) }
	pick := ""
	for _, c := range cands {
		if free(c) {
			pick = c
			break
		}
	}
	if pick == "" && step > 0 {
		if c := cands[0] + "_step" + strconv.Itoa(step); free(c) {
			pick = c
		}
	}
	stem := cands[len(cands)-1]
	for pick == "" {
		// Numbering resumes where the last name with this stem stopped,
		// so a thousand `id`s cost a thousand tries, not half a million.
		b.next[stem]++
		if c := stem + "_" + strconv.Itoa(b.next[stem]+1); free(c) {
			pick = c
		}
	}
	b.taken[pick] = true
	return pick
}

// bindNames derives readable variable names for a path, best first: its
// last key followed by any array indexes after it (`items.0.id` → id,
// `ids.0` → ids_0), then that name prefixed with the keys before it, one
// at a time (`owner.id` → owner_id). A name that would start with a digit
// borrows the key before it (`counts.2024` → counts_2024) or gets a `v_`
// prefix, and so does one that starts with "today" (`v_today`), which a
// reader would take for the computed date.
func bindNames(path []pathSeg) []string {
	i := len(path) - 1
	suffix := ""
	for ; i >= 0 && path[i].index >= 0; i-- {
		suffix = "_" + strconv.Itoa(path[i].index) + suffix
	}
	name := "item" + suffix
	if i >= 0 {
		name = path[i].key + suffix
	}
	var cands []string
	for j := i - 1; j >= 0; j-- {
		if path[j].index >= 0 {
			continue
		}
		if startsWithDigit(name) {
			name = path[j].key + "_" + name
			continue
		}
		cands = append(cands, name)
		name = path[j].key + "_" + name
	}
	if startsWithDigit(name) {
		name = "v_" + name
	}
	cands = append(cands, name)
	// `entities.0.name` reads better as entity_name than as name: the
	// key holding the array says what the element is.
	if i >= 1 && path[i-1].index >= 0 && genericLeafKeys[path[i].key] {
		for j := i - 1; j >= 0; j-- {
			if path[j].index < 0 {
				if p := snake(singular(path[j].key)); p != "" && !startsWithDigit(p) {
					cands = append([]string{p + "_" + path[i].key}, cands...)
				}
				break
			}
		}
	}
	for i, c := range cands {
		// A name that starts like the computed date would read as one
		// ({{today_2}}), so it gets a prefix as well.
		if strings.HasPrefix(strings.ToLower(c), "today") {
			cands[i] = "v_" + c
		}
	}
	return cands
}

// genericLeafKeys are keys that say what a value is only together with
// what it belongs to.
var genericLeafKeys = setOf(`name id title path key value type uri url text label slug`)

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// holeLeaf keeps a hole string's nodes in one allocation.
type holeLeaf struct {
	str   ast.String
	hole  ast.Hole
	holes [1]*ast.Hole
}

// set makes x the string leaf that is exactly the hole {{name}}.
func (x *holeLeaf) set(name string) *ast.String {
	v := "{{" + name + "}}"
	*x = holeLeaf{str: ast.String{Value: v}, hole: ast.Hole{Kind: ast.HoleVar, Name: name, Written: name, Start: 0, End: len(v)}}
	x.holes[0] = &x.hole
	x.str.Holes = x.holes[:]
	return &x.str
}

// mapLeaves replaces every scalar leaf of v with fn's result, depth first.
func mapLeaves(v ast.Value, fn func(ast.Value) ast.Value) ast.Value {
	switch v := v.(type) {
	case *ast.Object:
		for _, m := range v.Members {
			m.Value = mapLeaves(m.Value, fn)
		}
		return v
	case *ast.Array:
		for i, e := range v.Elements {
			v.Elements[i] = mapLeaves(e, fn)
		}
		return v
	}
	return fn(v)
}
