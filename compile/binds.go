package compile

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
)

// binding is one `name = json.<path>` on a source step and the steps that
// use it.
type binding struct {
	name  string
	path  string // dotted
	step  int    // the source step, as an index into the compiler's steps
	array bool   // the path crosses an array
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
}

func newBinder() *binder {
	return &binder{taken: map[string]bool{}, next: map[string]int{}, consumers: map[*binding][]int{}}
}

// use returns the binding for src, making it on first use, and records
// that step n consumes it.
func (b *binder) use(steps []*step, src *source, n int) *binding {
	bd := src.bound
	if bd == nil {
		bd = &binding{name: b.fresh(bindNames(src.path)), path: src.dotted(), step: int(src.step), array: src.array}
		src.bound = bd
		b.all = append(b.all, bd)
		st := steps[int(src.step)]
		st.binds = append(st.binds, bd)
	}
	if bd.array {
		if ns := b.consumers[bd]; len(ns) == 0 || ns[len(ns)-1] != n {
			b.consumers[bd] = append(ns, n)
		}
	}
	return bd
}

// fresh returns the first candidate that is neither taken nor reserved,
// or the last (most qualified) candidate numbered (_2, _3…) when all are.
func (b *binder) fresh(cands []string) string {
	free := func(n string) bool { return !b.taken[n] && !grammar.IsReservedName(n) }
	pick := ""
	for _, c := range cands {
		if free(c) {
			pick = c
			break
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
	for i, c := range cands {
		// A name that starts like the computed date would read as one
		// ({{today_2}}), so it gets a prefix as well.
		if strings.HasPrefix(strings.ToLower(c), "today") {
			cands[i] = "v_" + c
		}
	}
	return cands
}

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
