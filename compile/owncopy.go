package compile

import (
	"strings"

	"github.com/reelier/reelier/internal/jsregex"
)

// The element's own copy over a reference (#33). A result may hold a
// value whole only as another element's reference to it — a relation's
// `from`, a `parents` entry — while the element the agent read holds it
// as a labelled field inside one of its strings ("Account manager: Priya
// Raman"). The agent read the field; a bind on the reference keeps
// sending the old name when the field changes and the reference does not.
// The labelled copy is therefore a sighting that ranks above a reference
// (and below an element's own whole value): `manager = body match
// /"Account manager: ((?:[^"\\]|\\.)*)"/`.

// ownCopyRank ranks a labelled copy inside a string: below a whole value
// of an element (rank 0 or 1), above a reference (2 and more, and one
// more inside an array).
const ownCopyRank = 2

// maxLabel is the longest label, in bytes, read before a labelled value;
// maxOwnCopies the most references of one result looked up again, so a
// result of many references costs a bounded number of passes.
const (
	maxLabel     = 48
	maxOwnCopies = 16
)

// ownCopies adds, for each string sighting of the result just scanned that
// is a reference, the first labelled copy of the same value inside a JSON
// string of the text, when the text holds one. Each reference costs one
// pass over the text, for at most maxOwnCopies references a result.
func (x *valueIndex) ownCopies(text string) {
	if len(text) > maxPatternText {
		return
	}
	n, looked := len(x.pending), 0
	for i := 0; i < n && looked < maxOwnCopies; i++ {
		p := x.pending[i]
		if p.dead || p.src == nil || p.src.kind != 's' || p.src.text || refRank(p.src.path) == 0 {
			continue
		}
		looked++
		val := strings.TrimSuffix(strings.TrimPrefix(p.src.raw, `"`), `"`)
		if val == "" || strings.ContainsAny(val, "\"\\\n") {
			continue
		}
		src := labelledCopy(text, val)
		if src == nil {
			continue
		}
		src.step = int32(x.mineStep)
		x.pending = append(x.pending, pending{slot: p.slot, src: src, rank: ownCopyRank})
	}
}

// labelledCopy finds `"<label>: <val>"` in text — a JSON string that is a
// label of words, a colon and the value to the string's end — and returns
// the text source whose pattern reads it again, or nil.
func labelledCopy(text, val string) *source {
	for from := 0; from < len(text); {
		j := strings.Index(text[from:], val)
		if j < 0 {
			return nil
		}
		at := from + j
		from = at + 1
		end := at + len(val)
		if end >= len(text) || text[end] != '"' {
			continue
		}
		q := strings.LastIndexByte(text[max(0, at-maxLabel):at], '"')
		if q < 0 {
			continue
		}
		label := text[max(0, at-maxLabel)+q+1 : at]
		if !isLabel(label) {
			continue
		}
		pattern := `"` + escapeRegex(label) + `((?:[^"\\]|\\.)*)"`
		re, err := jsregex.CompileUncached(pattern)
		if err != nil {
			return nil
		}
		if got, ok, err := jsregex.FirstGroup(re, text); err != nil || !ok || got != val {
			return nil
		}
		return &source{text: true, field: true, labelled: true, kind: 's', raw: val, pattern: pattern,
			label: labelName(label)}
	}
	return nil
}

// isLabel reports words of letters and blanks, starting with a letter,
// ending in `: ` — a field's name inside a string.
func isLabel(s string) bool {
	w, ok := strings.CutSuffix(s, ": ")
	if !ok || w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter || !letter && c != ' ' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// labelName is a label as a bind name: `Account manager: ` →
// `account_manager`.
func labelName(label string) string {
	w := strings.TrimSuffix(label, ": ")
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-':
			return '_'
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, w)
}
