package heal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// The weakening rule: a heal may change what a check expects, move it with
// the field it reads, or add checks, but it may not give up checking a
// value. (docs/heal.md §4.1 and SPEC.md §13 state the same rule.)
//
// A value check is an assert that pins what a value is: `status ==|!= N`,
// `body contains|not contains "…"`, `json.P ==|!=|>|<|>=|<= scalar`,
// `json.P matches /…/`, `json.P length <op> N`, and `json.P is null`
// (it admits the one value null, so it is the same check as `== null`),
// and the same forms on a selection (`only(json.items where …).id == "x"`),
// whose subject is the selection as printed.
// The other `is` forms (`is string`, `is set`, …) only check a shape; they
// may be changed, moved or dropped freely.
//
// Each value check of the step must be matched by its own value check of
// the patch (one patch check answers for one step check), tried in this
// order:
//
//  1. the same check, unchanged;
//  2. a check of the same form on the same subject (the status, the body,
//     or one json path), its expected value changed: `== "2.0"` → `== "2.1"`
//     is a heal, not a weakening;
//  3. any value check on the same subject: `== "2.0"` → `matches /^2\./`;
//  4. for a json path, a check of the same form on a json path the step did
//     not value-check before: the field moved, and its check moved with it
//     (`json.version == "2.0"` → `json.data.version == "2.0"`).
//
// A step check left unmatched is dropped, and the patch weakens the step.
// The status and the body never stand in for a json path, nor for each
// other: a step whose checks become `status == 200` checks less.
// Strengthening (a new check, a shape check becoming a value check) is
// always accepted. The rule does not judge the new value: a bound loosened
// to `length >= 0` is still a value check.

// check is one assert as the rule sees it.
type check struct {
	line string // canonical text
	// subject is what the assert reads: "status", "body" or "json.<path>".
	subject string
	// form is the kind of value check ("==", "!=", "order", "matches",
	// "length", "contains", "not contains", "status"); "" for a shape check.
	form string
	// shape is the type of an `is` check; "" for the other forms.
	shape ast.TypeName
}

func classify(a ast.Assert) check {
	c := check{line: format.Assert(a)}
	switch a := a.(type) {
	case *ast.StatusAssert:
		c.subject, c.form = "status", "status"
	case *ast.BodyContainsAssert:
		c.subject, c.form = "body", "contains"
		if a.Negated {
			c.form = "not contains"
		}
	case *ast.JSONIsAssert:
		c.subject, c.shape = format.Path(a.Path), a.Type
		if a.Type == ast.TypeNull {
			c.form = "=="
		}
	case *ast.JSONMatchesAssert:
		c.subject, c.form = format.Path(a.Path), "matches"
	case *ast.JSONLengthAssert:
		c.subject, c.form = format.Path(a.Path), "length"
	case *ast.JSONCompareAssert:
		c.subject = format.Path(a.Path)
		switch a.Op {
		case ast.OpEq, ast.OpNe:
			c.form = string(a.Op)
		default:
			c.form = "order"
		}
	case *ast.SelectionAssert:
		// A selection is its own subject, compared as printed: a check on
		// max(json.items by modified).id stands in only for a check on
		// that same selection.
		c.subject = format.Selection(a.Sel)
		switch a.Kind {
		case ast.SelCompare:
			c.form = string(a.Op)
			if a.Op != ast.OpEq && a.Op != ast.OpNe {
				c.form = "order"
			}
		case ast.SelMatches:
			c.form = "matches"
		case ast.SelIs:
			c.shape = a.Type
			if a.Type == ast.TypeNull {
				c.form = "=="
			}
		}
	}
	return c
}

func (c check) isValue() bool { return c.form != "" }
func (c check) isJSON() bool  { return strings.HasPrefix(c.subject, "json.") }

// loss is a value check of the step the patch drops.
type loss struct {
	line string
	// became says what is left of it on its subject, "" when nothing is.
	became string
}

// What a dropped value check became.
const (
	becameType     = "a value check becomes a type check"
	becamePresence = "a value check becomes a presence check"
	becameStatus   = "only the status is checked"
)

// weakenings returns the value checks of before that after drops, in the
// step's order; none means after is at least as strong.
func weakenings(before, after []ast.Assert) []loss {
	var olds, news, all []check
	checked, read := map[string]bool{}, map[string]bool{}
	for _, a := range before {
		c := classify(a)
		read[c.subject] = true
		if c.isValue() {
			olds = append(olds, c)
			checked[c.subject] = true
		}
	}
	for _, a := range after {
		c := classify(a)
		all = append(all, c)
		if c.isValue() {
			news = append(news, c)
		}
	}
	passes := []func(o, n check) bool{
		func(o, n check) bool { return o.line == n.line },
		func(o, n check) bool { return o.subject == n.subject && o.form == n.form },
		func(o, n check) bool { return o.subject == n.subject },
		func(o, n check) bool { return o.isJSON() && n.isJSON() && !checked[n.subject] && o.form == n.form },
	}
	matched, used := make([]bool, len(olds)), make([]bool, len(news))
	for _, same := range passes {
		for i, o := range olds {
			for j, n := range news {
				if !matched[i] && !used[j] && same(o, n) {
					matched[i], used[j] = true, true
				}
			}
		}
	}
	var out []loss
	for i, o := range olds {
		if !matched[i] {
			out = append(out, loss{line: o.line, became: became(o, all, read)})
		}
	}
	return out
}

// became says what is left of a dropped check: a shape check on its
// subject, else (for a json path) a shape check on a path the step did not
// read before (the field moved and its check was weakened), else only
// status checks; "" when none of these.
func became(o check, after []check, read map[string]bool) string {
	for _, n := range after {
		if n.subject == o.subject && n.shape != "" && !n.isValue() {
			return shapeOf(n)
		}
	}
	for _, n := range after {
		if o.isJSON() && n.isJSON() && !read[n.subject] && n.shape != "" && !n.isValue() {
			return shapeOf(n) + " of " + n.subject
		}
	}
	if o.subject == "status" {
		return ""
	}
	for _, n := range after {
		if n.subject != "status" {
			return ""
		}
	}
	return becameStatus
}

func shapeOf(n check) string {
	if n.shape == ast.TypeSet {
		return becamePresence
	}
	return becameType
}

// maxLosses bounds the checks a refusal lists by name.
const maxLosses = 8

// weakeningError is the refusal of a patch that drops lost.
func weakeningError(lost []loss) error {
	statusOnly := true
	for _, l := range lost {
		statusOnly = statusOnly && l.became == becameStatus
	}
	var items []string
	for _, l := range lost[:min(len(lost), maxLosses)] {
		item := l.line
		if l.became != "" && (!statusOnly || len(lost) == 1) {
			item += " (" + l.became + ")"
		}
		items = append(items, item)
	}
	if len(lost) > maxLosses {
		items = append(items, fmt.Sprintf("and %d more", len(lost)-maxLosses))
	}
	var msg string
	switch {
	case len(lost) == 1:
		msg = "it would drop the check " + items[0]
	case statusOnly:
		msg = fmt.Sprintf("it would drop %d checks and check only the status: %s", len(lost), strings.Join(items, ", "))
	default:
		msg = fmt.Sprintf("it would drop %d checks: %s", len(lost), strings.Join(items, ", "))
	}
	return errors.New(msg + "; pass --allow-weaker-heal to accept weaker checks")
}

// changedLines returns the step's lines, as its skill prints them, that the
// patch replaces (before) and the lines that replace them (after), each in
// the step's order; a line the patch keeps is in neither.
func changedLines(st *ast.Step, p *patch) (before, after []string) {
	args := st.Action.Args
	if p.args != nil {
		args = p.args
	}
	old := stepLines(st.Action.Tool, st.Action.Args, stepAsserts(st), stepBinds(st))
	cur := stepLines(st.Action.Tool, args, p.asserts, p.binds)
	return minus(old, cur), minus(cur, old)
}

func stepLines(tool string, args ast.Value, asserts []ast.Assert, binds []ast.Bind) []string {
	lines := []string{"- action: " + format.Action(&ast.ActionField{Tool: tool, Args: args})}
	for _, a := range asserts {
		lines = append(lines, "- assert: "+format.Assert(a))
	}
	for _, b := range binds {
		lines = append(lines, "- bind: "+format.Bind(b))
	}
	return lines
}

// minus returns the lines of a that b does not have, counting repeats.
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, l := range b {
		left[l]++
	}
	var out []string
	for _, l := range a {
		if left[l] > 0 {
			left[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}
