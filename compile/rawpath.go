package compile

import "github.com/reelier/reelier/tool/jsondata"

// A document is the JSON a pick reads from: its text, and the values at
// paths in it parsed on demand, so that a large result is never parsed
// whole for the one element a later step took.
type document struct {
	text []byte
}

// at returns the value at the path's segments, parsed, or false when the
// path leads nowhere. An object's key given twice resolves to its last
// member, as json paths do.
func (d document) at(segs []string) (any, bool) {
	raw, ok := jsondata.RawAt(d.text, segs)
	if !ok {
		return nil, false
	}
	v, err := jsondata.Parse(string(raw))
	return v, err == nil
}
