package replay

import (
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// Resolve walks a dot path through JSON data, as asserts and binds do. An object segment is a member
// key (digits included); an array segment must be a canonical index ("0",
// "12", not "012") inside the array. Nothing else has members: strings,
// numbers, booleans and null end the walk with "not found", and no
// JavaScript property such as length or constructor is ever invented.
func Resolve(root any, p ast.Path) (any, bool) {
	cur := root
	for _, el := range p.Elements {
		switch c := cur.(type) {
		case *jsondata.Object:
			v, ok := c.Get(el.Name)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			if !canonicalIndex(el) || el.Index >= len(c) {
				return nil, false
			}
			cur = c[el.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// canonicalIndex reports whether the segment is an array index written the
// way JavaScript spells one.
func canonicalIndex(el ast.PathElement) bool {
	return el.Index >= 0 && (len(el.Name) == 1 || el.Name[0] != '0')
}
