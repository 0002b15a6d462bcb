package compile

import (
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/tool/jsondata"
)

// Preconditions on a listing (#33). An agent that lists the tags, or the
// branches, and then creates one by a name none of them had, created it
// because it was absent: a world that already holds it is one where the
// agent would not have sent the create. The listing — the read before the
// write, not the write's own failure — gets the assert that nothing of
// that name exists: `count(json.tags where name == "v{{release_name}}")
// == 0`. The argument is matched to the elements' key by its name
// (`tagName`, `branchName` → `name`), and only keys that name an element
// (a name, title, key, slug, path or id) count.

// identityKeys are the element keys an argument can name a thing by.
var identityKeys = setOf(`name title key slug path id`)

// listingPrecondition adds the assert to the most recent listing among
// the last results whose elements have the argument's key and none of
// which holds the value sent.
func (c *compiler) listingPrecondition(st *step, l argLeaf) {
	if l.num || !l.eligible || l.member == "" || isRedacted(l.raw) || strings.ContainsAny(l.raw, "\n\r") || c.effect(st) == ast.EffectRead {
		return
	}
	if !identityKeys[strings.ToLower(l.member)] && !identityKeys[lastWord(l.member)] {
		return // checked before the results are looked at: most arguments name nothing
	}
	for _, r := range c.latest(st) {
		if r.sent[l.raw] {
			return // the search asked for it: precondition's own rule
		}
		for _, a := range r.arrays() {
			key := argElementKey(l.member, a.objs)
			if key == "" {
				continue
			}
			for _, o := range a.objs {
				if v, _ := o.Get(key); v == l.raw {
					return // it existed: the step acts on it
				}
			}
			from := c.steps[r.step]
			sel := &ast.Selection{Pick: ast.PickCount, Source: jsonSource(a.path),
				Where: []*ast.Condition{eqCond(key, c.sentValue(st, l))}}
			from.preNone(sel)
			return
		}
	}
}

// argElementKey is the key of the elements an argument names one of them
// by: the key itself, or the last word of the argument's name (`tagName`
// → `name`), when it is an identity key every element holds as a string.
func argElementKey(member string, objs []*jsondata.Object) string {
	if len(objs) == 0 {
		return ""
	}
	for _, k := range []string{member, lastWord(member)} {
		if !identityKeys[strings.ToLower(k)] {
			continue
		}
		all := true
		for _, o := range objs {
			if v, ok := o.Get(k); !ok {
				all = false
				break
			} else if _, isStr := v.(string); !isStr {
				all = false
				break
			}
		}
		if all {
			return k
		}
	}
	return ""
}

// sentValue is the value a step sends for a leaf, with the holes the
// compiler gave it (`v{{release_name}}`), or the recorded string.
func (c *compiler) sentValue(st *step, l argLeaf) ast.Value {
	for _, h := range st.holes {
		if h.ord != l.ord {
			continue
		}
		if h.composed != nil {
			return h.composed
		}
		if h.whole != "" {
			var x holeLeaf
			return x.set(h.whole)
		}
	}
	return &ast.String{Value: l.raw}
}

// lastWord is the last word of a key, lower-cased (`branchName` → `name`).
func lastWord(member string) string {
	sn := snake(member)
	if i := strings.LastIndexByte(sn, '_'); i >= 0 {
		return sn[i+1:]
	}
	return sn
}

// preNone adds the assert that sel counts nothing (count == 0) before the
// step, unless the step has one of the same text already.
func (st *step) preNone(sel *ast.Selection) {
	txt := format.Selection(sel)
	for _, p := range st.pre {
		if format.Selection(p.Sel) == txt {
			return
		}
	}
	st.pre = append(st.pre, &ast.SelectionAssert{Sel: sel, Kind: ast.SelCompare, Op: ast.OpEq, Value: &ast.Number{Raw: "0"}})
}
