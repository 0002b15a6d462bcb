package compile

import (
	"time"

	"github.com/reelier/reelier/ast"
)

// consolidateAt is how many distinct steps must share a date, UUID or
// timestamp literal before their questions merge into one.
const consolidateAt = 3

// literalUse is one literal value and the steps that send it.
type literalUse struct {
	quoted   string       // as the skill writes it, shortened for questions
	lint     *literalLint // what the date/UUID/timestamp checks say, or nil
	repeat   bool         // long enough for the repeated-literal question
	steps    []int        // distinct step numbers, in order
	template bool         // a recorded string with a template hole inside
}

// literalTable gathers the literals left in the final arguments, keyed by
// their value (strings) or their text (numbers), in the order first seen.
type literalTable struct {
	strs, nums map[string]*literalUse
	order      []*literalUse
}

// literalQuestions asks about the literals that remain in the arguments
// once dataflow recovery is done: recorded template holes, date, UUID and
// Unix-timestamp literals, and values several calls send that no earlier
// result held.
func (c *compiler) literalQuestions() {
	t := &c.lits
	for _, u := range t.order {
		first := c.steps[u.steps[0]-1]
		if u.template {
			for _, n := range u.steps {
				c.q.add(n, KindTemplateLiteral, "%s: the recorded string %s contains {{…}}, which replay reads as a template hole and fills (or fails on); the skill language has no escape for braces, so if the server must receive them as written, change how the value is sent.", ref(c.steps[n-1]), u.quoted)
			}
		}
		merged := u.lint != nil && len(u.steps) >= consolidateAt
		switch {
		case merged:
			c.q.add(first.n, u.lint.kind, "%s: %s appears in steps %s — one variable? It %s", ref(first), u.quoted, stepList(u.steps), u.lint.rest)
		case u.lint != nil:
			for _, n := range u.steps {
				c.q.add(n, u.lint.kind, "%s: %s %s", ref(c.steps[n-1]), u.quoted, u.lint.rest)
			}
		}
		if u.repeat && len(u.steps) >= 2 && !merged {
			c.q.add(first.n, KindRepeatedLiteral, "%s: the literal %s is sent by steps %s, and no earlier result holds it — one input variable? The compiler never invents inputs: add one by hand and pass it with --var.", ref(first), u.quoted, stepList(u.steps))
		}
	}
}

// see records one literal leaf sent by step n.
func (t *literalTable) see(n int, v ast.Value, recorded time.Time, haveRecorded bool) {
	var lint *literalLint
	var byKey map[string]*literalUse
	var key string
	template := false
	switch v := v.(type) {
	case *ast.String:
		byKey, key, template = t.strs, v.Value, len(v.Holes) > 0
		if l, ok := stringLint(v.Value, recorded, haveRecorded); ok {
			lint = &l
		}
	case *ast.Number:
		byKey, key = t.nums, v.Raw
		if l, ok := unixLint(v.Raw, recorded, haveRecorded); ok {
			lint = &l
		}
	default:
		return
	}
	_, _, repeat := eligible(v)
	if lint == nil && !repeat && !template {
		return
	}
	u := byKey[key]
	if u == nil {
		u = &literalUse{quoted: quote(v), lint: lint, repeat: repeat, template: template}
		byKey[key] = u
		t.order = append(t.order, u)
	}
	if len(u.steps) == 0 || u.steps[len(u.steps)-1] != n {
		u.steps = append(u.steps, n)
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
