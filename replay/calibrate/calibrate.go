// Package calibrate measures a skill's value checks instead of guessing
// them. The compiler decides from one recording which fields are stable
// (a value assert) and which change from run to run (a type assert);
// calibration replays the skill a few times against the live servers,
// with its checks set aside so every permitted step runs, and holds each
// check to what the runs observed:
//
//   - a value assert (`json.p == v`) that some run contradicts, where the
//     runs saw different values, becomes a type assert when every run saw
//     a value of one type there, and is removed when the value was missing
//     in some run;
//   - a shape assert (`json.p matches /…/`) likewise becomes a type
//     assert;
//   - a `body contains` assert that held in some runs and not in others
//     is removed;
//   - a check every run contradicts alike (each saw the same other value)
//     is left and reported: the world differs from the recording, and
//     that is not volatility;
//   - any other assert some run contradicts (a status, a type, a length)
//     is left as it is and reported: loosening it would hide a failure,
//     not a volatile value.
//
// Nothing is changed for a step no run reached (its effect was not
// permitted, or an earlier step failed). Replays are Level 0 and run
// under the gates the caller sets: calibrating a skill with writes against
// a world it must not change is the caller's choice to make, not ours.
package calibrate

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/writeback"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// DefaultRuns is how many replays a calibration makes when Options.Runs
// is zero.
const DefaultRuns = 3

// Options configure Measure.
type Options struct {
	// Runs is how many times the skill is replayed; 0 means DefaultRuns.
	Runs int
	// Run configures each replay: its tools, variables and gates. Its
	// Healer is ignored: calibration never escalates.
	Run replay.Options
}

// Change is one assert calibration loosens.
type Change struct {
	Step int `json:"step"`
	// Before is the assert as the skill has it; After its replacement,
	// "" when it is removed.
	Before string `json:"before"`
	After  string `json:"after"`
	// Why says what the runs observed.
	Why string `json:"why"`
}

// Warning is an assert some run contradicted that calibration leaves as
// it is.
type Warning struct {
	Step   int    `json:"step"`
	Assert string `json:"assert"`
	Failed int    `json:"failedRuns"`
	Why    string `json:"why"`
}

// Report is what a calibration measured.
type Report struct {
	Runs int `json:"runs"`
	// Reached counts, per step number, the runs in which the step's tool
	// answered.
	Reached map[int]int `json:"reached"`
	// Unreached lists the steps no run reached.
	Unreached []int     `json:"unreached"`
	Changes   []Change  `json:"changes"`
	Warnings  []Warning `json:"warnings"`
	// Held counts the checks every run that reached their step upheld.
	Held int `json:"held"`

	// replace maps a step number and an assert's canonical text to its
	// replacement (nil: removed), so a report applies to the file as it is
	// when written, even if a heal changed other lines meanwhile.
	replace map[stepAssert]ast.Assert
}

type stepAssert struct {
	step int
	text string
}

// Measure replays skill opts.Runs times with its asserts set aside and
// holds each assert to the observations. It never modifies skill; Apply
// does.
func Measure(ctx context.Context, skill *ast.Skill, opts Options) *Report {
	runs := opts.Runs
	if runs <= 0 {
		runs = DefaultRuns
	}
	probe := *skill
	probe.Steps = make([]*ast.Step, len(skill.Steps))
	for i, st := range skill.Steps {
		cp := *st
		cp.Asserts = nil
		probe.Steps[i] = &cp
	}
	ro := opts.Run
	ro.Healer = nil
	observed := map[int][]*tool.Observation{}
	for range runs {
		if ctx.Err() != nil {
			break
		}
		res := replay.Run(ctx, &probe, ro)
		for _, sr := range res.Steps {
			if sr.Observation != nil {
				observed[sr.Step.Number] = append(observed[sr.Step.Number], sr.Observation)
			}
		}
	}
	rep := &Report{Runs: runs, Reached: map[int]int{}, Changes: []Change{}, Warnings: []Warning{}, Unreached: []int{}, replace: map[stepAssert]ast.Assert{}}
	for _, st := range skill.Steps {
		obs := observed[st.Number]
		rep.Reached[st.Number] = len(obs)
		if len(obs) == 0 {
			rep.Unreached = append(rep.Unreached, st.Number)
			continue
		}
		for _, af := range st.Asserts {
			rep.judge(st.Number, af.Expr, obs)
		}
	}
	return rep
}

// judge holds one assert to a step's observations.
func (r *Report) judge(step int, a ast.Assert, obs []*tool.Observation) {
	failed := 0
	for _, o := range obs {
		if len(replay.Check(o, []ast.Assert{a}, nil)) > 0 {
			failed++
		}
	}
	if failed == 0 {
		r.Held++
		return
	}
	before := format.Assert(a)
	switch a := a.(type) {
	case *ast.JSONCompareAssert:
		if a.Op != ast.OpEq {
			break
		}
		r.loosen(step, a.Path, before, obs, failed)
		return
	case *ast.JSONMatchesAssert:
		r.loosen(step, a.Path, before, obs, failed)
		return
	case *ast.SelectionAssert:
		if a.Kind == ast.SelMatches || (a.Kind == ast.SelCompare && a.Op == ast.OpEq) {
			r.loosenSelection(step, a.Sel, before, obs, failed)
			return
		}
	case *ast.BodyContainsAssert:
		if a.Negated || failed == len(obs) {
			// Every run disagreed with the recording alike: the world
			// differs from it, which is not a volatile text.
			break
		}
		r.replace[stepAssert{step, before}] = nil
		r.Changes = append(r.Changes, Change{Step: step, Before: before,
			Why: fmt.Sprintf("the body did not contain the text in %d of %d runs", failed, len(obs))})
		return
	}
	r.Warnings = append(r.Warnings, Warning{Step: step, Assert: before, Failed: failed,
		Why: fmt.Sprintf("failed in %d of %d runs; not a value calibration can loosen — look at the step", failed, len(obs))})
}

// loosen turns a value or shape assert at path into a type assert when the
// runs agree on the type, or removes it when a run had no value there.
func (r *Report) loosen(step int, path ast.Path, before string, obs []*tool.Observation, failed int) {
	read := func(o *tool.Observation) (any, bool, error) {
		root, err := o.JSON()
		if err != nil {
			return nil, false, nil
		}
		v, ok := replay.Resolve(root, path)
		return v, ok, nil
	}
	r.loosenTo(step, before, obs, failed, read, func(t ast.TypeName) ast.Assert { return &ast.JSONIsAssert{Path: path, Type: t} })
}

// loosenSelection is loosen for a selection's value. A run where the
// selection could not be evaluated (no element kept, a tie, a key
// missing) did not see a volatile value: the assert stays, with a
// warning.
func (r *Report) loosenSelection(step int, sel *ast.Selection, before string, obs []*tool.Observation, failed int) {
	read := func(o *tool.Observation) (any, bool, error) { return replay.SelectionValue(o, sel) }
	r.loosenTo(step, before, obs, failed, read, func(t ast.TypeName) ast.Assert { return &ast.SelectionAssert{Sel: sel, Kind: ast.SelIs, Type: t} })
}

// loosenTo holds the values read from each run: one type throughout makes
// the assert the type assert typed builds, a run without a value removes
// it, one value throughout (not the recorded one) is a warning.
func (r *Report) loosenTo(step int, before string, obs []*tool.Observation, failed int,
	read func(*tool.Observation) (any, bool, error), typed func(ast.TypeName) ast.Assert) {
	var seen []string
	types := map[string]bool{}
	missing := 0
	for _, o := range obs {
		v, ok, err := read(o)
		if err != nil {
			r.Warnings = append(r.Warnings, Warning{Step: step, Assert: before, Failed: failed,
				Why: fmt.Sprintf("failed in %d of %d runs, and a run could not evaluate it (%v); not a value calibration can loosen — look at the step", failed, len(obs), err)})
			return
		}
		if !ok || v == nil {
			missing++
			continue
		}
		types[jsondata.TypeName(v)] = true
		if s := jsondata.String(v); len(seen) < 5 && !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	values := strings.Join(seen, ", ")
	if missing == 0 && len(seen) == 1 {
		// Every run saw the same value, and not the recorded one: the
		// world differs from the recording, the value is not volatile.
		r.Warnings = append(r.Warnings, Warning{Step: step, Assert: before, Failed: failed,
			Why: fmt.Sprintf("every run saw %s, not the recorded value; the world differs from the recording — a value that does not change is not loosened", values)})
		return
	}
	if missing > 0 || len(types) != 1 {
		r.replace[stepAssert{step, before}] = nil
		r.Changes = append(r.Changes, Change{Step: step, Before: before,
			Why: fmt.Sprintf("%d of %d runs disagreed, and %d had no single-typed value there (seen: %s)", failed, len(obs), missing, orNone(values))})
		return
	}
	var typ string
	for t := range types {
		typ = t
	}
	after := typed(ast.TypeName(typ))
	r.replace[stepAssert{step, before}] = after
	r.Changes = append(r.Changes, Change{Step: step, Before: before, After: format.Assert(after),
		Why: fmt.Sprintf("the value changed from run to run (%d of %d runs disagreed; seen: %s)", failed, len(obs), values)})
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Apply loosens skill's asserts as rep says and appends a changelog line
// dated now. It reports whether anything changed: an assert the report
// names that the skill no longer has is left alone.
func Apply(skill *ast.Skill, rep *Report, now time.Time) bool {
	changed := map[int]bool{}
	n := 0
	for _, st := range skill.Steps {
		var kept []*ast.AssertField
		for _, af := range st.Asserts {
			repl, ok := rep.replace[stepAssert{st.Number, format.Assert(af.Expr)}]
			switch {
			case !ok:
				kept = append(kept, af)
				continue
			case repl != nil:
				kept = append(kept, &ast.AssertField{Expr: repl})
			}
			changed[st.Number] = true
			n++
		}
		st.Asserts = kept
	}
	if n == 0 {
		return false
	}
	var ns []int
	for k := range changed {
		ns = append(ns, k)
	}
	slices.Sort(ns)
	var list []string
	for _, k := range ns {
		list = append(list, fmt.Sprint(k))
	}
	writeback.AppendChangelog(skill, fmt.Sprintf("- %s — calibrated over %d runs: %d check(s) loosened where the value changed from run to run (steps %s)",
		now.UTC().Format(time.DateOnly), rep.Runs, n, strings.Join(list, ", ")))
	return true
}

// WriteText prints the report for a terminal: what was measured, every
// change with its reason, and every warning.
func (r *Report) WriteText(w io.Writer, name string) error {
	var b strings.Builder
	reached := 0
	for _, n := range r.Reached {
		if n > 0 {
			reached++
		}
	}
	fmt.Fprintf(&b, "Calibrated %s over %d runs: %d of %d steps reached, %d checks held in every run, %d to loosen, %d warnings\n",
		name, r.Runs, reached, len(r.Reached), r.Held, len(r.Changes), len(r.Warnings))
	if len(r.Unreached) > 0 {
		fmt.Fprintf(&b, "  not reached: steps %s (their effect was not permitted, or an earlier step failed); their checks are as compiled\n", joinInts(r.Unreached))
	}
	for _, c := range r.Changes {
		after := "→ removed"
		if c.After != "" {
			after = "→ " + c.After
		}
		fmt.Fprintf(&b, "  step %d: %s %s — %s\n", c.Step, c.Before, after, c.Why)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "  step %d: warning: %s — %s\n", wn.Step, wn.Assert, wn.Why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
