package compile

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// consolidateAt is how many distinct steps must share a date, UUID or
// timestamp literal before their questions merge into one.
const consolidateAt = 3

// literalUse is one literal value that a question may be about, and the
// steps that send it.
type literalUse struct {
	literal  argLeaf      // the value, for quoting it in a question
	lint     *literalLint // what the date/UUID/timestamp checks say, or nil
	repeat   bool         // long enough for the repeated-literal question
	template bool         // a recorded string with a template hole inside
	steps    []int        // distinct step numbers, in order
	seq      int          // when the value was first seen
}

// literalRef is what the table keeps of every distinct literal: when and
// where it was first seen and, once it may need a question (a second step
// sends it, or it is a date, UUID, timestamp or template on its own), its
// use. Most literals are sent once and never get one, so a trace's many
// one-off values cost a map entry each.
type literalRef struct {
	seq  int32
	step int32
	use  int32 // 1 + the index into uses; 0 for none yet
}

// literalTable gathers the literals left in the final arguments, keyed by
// their value (strings) or their text (numbers).
type literalTable struct {
	strs, nums map[string]literalRef
	uses       []literalUse
	seen       int32
}

// literalQuestions asks about the literals that remain in the arguments
// once dataflow recovery is done: recorded template holes, date, UUID and
// Unix-timestamp literals, and values several calls send that no earlier
// result held. They are asked in the order the literals were first seen.
func (c *compiler) literalQuestions() {
	t := &c.lits
	// A sorted copy: the table's refs point into uses by position.
	uses := slices.SortedFunc(slices.Values(t.uses), func(a, b literalUse) int { return cmp.Compare(a.seq, b.seq) })
	for _, u := range uses {
		quoted := quote(u.literal.value())
		first := c.steps[u.steps[0]-1]
		if u.template {
			for _, n := range u.steps {
				c.q.add(n, KindTemplateLiteral, "%s: the recorded string %s contains {{…}}, which replay reads as a template hole and fills (or fails on); the skill language has no escape for braces, so if the server must receive them as written, change how the value is sent.", ref(c.steps[n-1]), quoted)
			}
		}
		merged := u.lint != nil && len(u.steps) >= consolidateAt
		switch {
		case merged:
			c.q.add(first.n, u.lint.kind, "%s: %s appears in steps %s — one variable? It %s", ref(first), quoted, stepList(u.steps), u.lint.rest)
		case u.lint != nil:
			for _, n := range u.steps {
				c.q.add(n, u.lint.kind, "%s: %s %s", ref(c.steps[n-1]), quoted, u.lint.rest)
			}
		}
		if u.repeat && len(u.steps) >= 2 && !merged {
			c.q.add(first.n, KindRepeatedLiteral, "%s: the literal %s is sent by steps %s, and no earlier result holds it — one input variable? The compiler never invents inputs: add one by hand and pass it with --var.", ref(first), quoted, stepList(u.steps))
		}
	}
}

// see records one literal leaf sent by step n.
func (t *literalTable) see(n int, l argLeaf, recorded time.Time, haveRecorded bool) {
	var lint *literalLint
	byKey, check := t.strs, stringLint
	if l.num {
		byKey, check = t.nums, unixLint
	}
	if found, ok := check(l.raw, recorded, haveRecorded); ok {
		lint = &found
	}
	if lint == nil && !l.eligible && !l.template {
		return
	}
	r, known := byKey[l.raw]
	grows := r.use == 0 && (known || lint != nil || l.template)
	if !known || grows {
		// A copy of the text, so the table does not keep the whole
		// argument string it was cut from (storing a known key again
		// stores the new string too).
		l.raw = strings.Clone(l.raw)
	}
	if !known {
		r = literalRef{seq: t.seen, step: int32(n)}
		t.seen++
	}
	if grows {
		t.uses = append(t.uses, literalUse{literal: argLeaf{num: l.num, raw: l.raw}, lint: lint,
			repeat: l.eligible, template: l.template, steps: []int{int(r.step)}, seq: int(r.seq)})
		r.use = int32(len(t.uses))
	}
	if !known || grows {
		byKey[l.raw] = r
	}
	if r.use != 0 {
		u := &t.uses[r.use-1]
		if u.steps[len(u.steps)-1] != n {
			u.steps = append(u.steps, n)
		}
	}
}

// stringLint runs the date, UUID and timestamp checks on a string. Date
// checks need the recording date and are skipped without one.
func stringLint(s string, recorded time.Time, haveRecorded bool) (literalLint, bool) {
	if haveRecorded {
		if l, ok := dateLint(s, recorded); ok {
			return l, true
		}
	}
	if isUUID(s) {
		return uuidLint(), true
	}
	return unixLint(s, recorded, haveRecorded)
}
