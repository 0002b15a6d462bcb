package compile

import (
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
)

// Read-backs. A skill that writes a value and later reads the world back
// holds that read to showing what it wrote: the string a writing step
// sent as a literal, when the recorded read's text shows it, becomes a
// `body contains` assert on the read. Type checks alone let a replay
// pass whose write did not take — a server that keeps an entity it
// already had and ignores the create, so the read shows the old value —
// while the skill reports the work done (SPEC.md §11).

// maxReadBacks bounds the read-back asserts of one step, and
// maxWritten the literals remembered for them.
const (
	maxReadBacks = 4
	maxWritten   = 256
)

// literal keeps a leaf the dataflow left as written: the literal table
// sees it, and a writing step's string is remembered for read-backs.
func (c *compiler) literal(st *step, l argLeaf) {
	c.lits.see(st.n, l, c.recorded, c.haveRecorded)
	c.noteWritten(st, l)
}

// noteWritten remembers a literal string a writing step sends.
func (c *compiler) noteWritten(st *step, l argLeaf) {
	if l.num || l.template || c.effect(st) == ast.EffectRead {
		return
	}
	if len(c.written) >= maxWritten || c.wrote[l.raw] || !readBackable(l.raw) {
		return
	}
	if c.wrote == nil {
		c.wrote = map[string]bool{}
	}
	c.wrote[l.raw] = true
	c.written = append(c.written, l.raw)
}

// readBackable reports a string a `body contains` assert can hold a read
// to: three to maxCheckedText characters on one line, nothing JSON
// escapes (so the text of a JSON result shows it as it is), no template
// braces, nothing volatile and nothing redacted.
func readBackable(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 3 || n > maxCheckedText || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return !strings.Contains(s, "{{") && !isVolatileText(s) && !isRedacted(s)
}

// readBacks picks, for a reading step, the remembered literals its
// result's text shows, leaving out what the step itself sent (an echo of
// its own query proves nothing about the write). A read whose arguments
// take a value from an earlier result (a hole) reads whatever that value
// points at, which a drifted world may make something the skill did not
// write — following it is right, so it gets none.
func (c *compiler) readBacks(st *step, text string, echo map[string]bool) []string {
	if len(c.written) == 0 || len(st.holes) > 0 || c.effect(st) != ast.EffectRead {
		return nil
	}
	var out []string
	for _, w := range c.written {
		if len(out) == maxReadBacks {
			break
		}
		if echo[w] || holdsAny(w, st.sent) || !strings.Contains(text, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// effect is a step's effect class while the dataflow runs, before
// stepQuestions sets st.class (classify keeps one per tool, and
// stepClass one per step whose arguments raise it).
func (c *compiler) effect(st *step) ast.Effect {
	return c.stepClass(st).Effect
}
