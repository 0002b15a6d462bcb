package diff

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool/jsondata"
)

// Run is one side of a comparison of run records.
type Run struct {
	Record *runlog.Record
	// Name is short ("run 4"); Desc says which run it is for the header.
	Name, Desc string
}

// Runs compares two run records of a skill step by step (by step
// number): the outcome, the filled call, the values the binds took and
// the digest of what the tool returned. prof, when not nil, is the skill.
func Runs(a, b Run, prof *Profile) *Report {
	r := &Report{Kind: "runs", A: a.Desc, B: b.Desc, nameA: a.Name, nameB: b.Name, Steps: []*Step{}}
	ra, rb := a.Record, b.Record
	switch {
	case ra.Skill != rb.Skill:
		r.Notes = append(r.Notes, fmt.Sprintf("the runs are of different skills (%q, %q)", ra.Skill, rb.Skill))
	case ra.SkillSHA256 != "" && rb.SkillSHA256 != "" && ra.SkillSHA256 != rb.SkillSHA256:
		r.Notes = append(r.Notes, fmt.Sprintf("the skill file changed between the runs (sha256 %s → %s)", short(ra.SkillSHA256), short(rb.SkillSHA256)))
	}
	if ra.Path != "" && rb.Path != "" && ra.Path != rb.Path {
		r.Notes = append(r.Notes, fmt.Sprintf("the runs replayed different files (%s, %s)", ra.Path, rb.Path))
	}
	if !detailed(ra) || !detailed(rb) {
		r.Notes = append(r.Notes, "a run record written before filled actions and result digests were kept: for its steps only the outcomes are compared")
	}
	byA, byB := steps(ra), steps(rb)
	var ns []int
	for n := range byA {
		ns = append(ns, n)
	}
	for n := range byB {
		if _, ok := byA[n]; !ok {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	echoes := &bindings{}
	for _, n := range ns {
		sa, sb := byA[n], byB[n]
		st := &Step{N: n}
		switch {
		case sa == nil:
			st.Title, st.Only = sb.Title, "b"
			st.Tool = toolOf(sb)
		case sb == nil:
			st.Title, st.Only = sa.Title, "a"
			st.Tool = toolOf(sa)
		default:
			st.Title, st.Tool = sb.Title, toolOf(sb)
			if st.Tool == "" {
				st.Tool = toolOf(sa)
			}
			sp := prof.Step(n)
			st.Changes, st.Ignored, st.DigestOnly = compareSteps(sa, sb, sp, echoes)
			if sp != nil {
				for name := range sp.BindsTypeOnly {
					va, okA := boundValue(sa, name)
					vb, okB := boundValue(sb, name)
					echoes.set(name, va, vb, okA, okB)
				}
			}
		}
		st.settle()
		r.Steps = append(r.Steps, st)
	}
	return r
}

// detailed reports whether a record keeps actions or digests for any of
// its steps that ran.
func detailed(r *runlog.Record) bool {
	ran := false
	for _, s := range r.Steps {
		if s.Action != nil || s.Observation != nil || s.Binds != nil {
			return true
		}
		ran = ran || s.Outcome != runlog.Skipped
	}
	return !ran
}

func steps(r *runlog.Record) map[int]*runlog.StepRecord {
	out := make(map[int]*runlog.StepRecord, len(r.Steps))
	for i := range r.Steps {
		out[r.Steps[i].N] = &r.Steps[i]
	}
	return out
}

func toolOf(s *runlog.StepRecord) string {
	if s.Action != nil {
		return s.Action.Tool
	}
	return ""
}

// compareSteps compares one step of two runs.
func compareSteps(a, b *runlog.StepRecord, sp *StepProfile, echoes *bindings) (changes, ignored []Change, digestOnly bool) {
	if a.Outcome != b.Outcome {
		c := Change{Path: "outcome", From: string(a.Outcome), To: string(b.Outcome), Kind: Changed}
		switch {
		case b.Outcome == runlog.Skipped:
			c.Note = b.Skip
		case a.Outcome == runlog.Skipped:
			c.Note = a.Skip
		}
		changes = append(changes, c)
		if a.Outcome == runlog.Skipped || b.Outcome == runlog.Skipped {
			// One side never ran the step: nothing else to set beside it.
			return changes, nil, false
		}
	}
	switch {
	case a.Action == nil && b.Action == nil:
	case a.Action == nil:
		changes = append(changes, Change{Path: "action", To: actionText(b.Action), Kind: Added})
	case b.Action == nil:
		changes = append(changes, Change{Path: "action", From: actionText(a.Action), Kind: Removed})
	case a.Action.Tool != b.Action.Tool:
		changes = append(changes, Change{Path: "tool", From: a.Action.Tool, To: b.Action.Tool, Kind: Changed})
	default:
		ch, ig := compareJSON("args", a.Action.Args, b.Action.Args, sp.argsTypeOnly(), echoes)
		changes, ignored = append(changes, ch...), append(ignored, ig...)
	}
	var names []string
	for name := range a.Binds {
		names = append(names, name)
	}
	for name := range b.Binds {
		if _, ok := a.Binds[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		va, oka := a.Binds[name]
		vb, okb := b.Binds[name]
		root := "binds." + name
		switch {
		case !okb:
			changes = append(changes, Change{Path: root, From: cut(string(va)), Kind: Removed})
		case !oka:
			changes = append(changes, Change{Path: root, To: cut(string(vb)), Kind: Added})
		default:
			ch, ig := compareJSON(root, va, vb, sp.bindTypeOnly(name), echoes)
			changes, ignored = append(changes, ch...), append(ignored, ig...)
		}
	}
	da, db := a.Observation, b.Observation
	switch {
	case da == nil && db == nil:
	case da == nil:
		changes = append(changes, Change{Path: "observation", To: digestText(db), Kind: Added})
	case db == nil:
		changes = append(changes, Change{Path: "observation", From: digestText(da), Kind: Removed})
	case da.SHA256 != db.SHA256 || da.Size != db.Size:
		if da.Status != db.Status {
			changes = append(changes, Change{Path: "status", From: strconv.Itoa(da.Status), To: strconv.Itoa(db.Status), Kind: Changed})
		}
		changes = append(changes, Change{Path: "observation", From: digestText(da), To: digestText(db), Kind: Changed})
		digestOnly = true
	}
	return changes, ignored, digestOnly
}

// boundValue is the value a step's record says name took.
func boundValue(s *runlog.StepRecord, name string) (any, bool) {
	raw, ok := s.Binds[name]
	if !ok {
		return nil, false
	}
	v, err := jsondata.Parse(string(raw))
	return v, err == nil
}

func actionText(a *runlog.ActionRecord) string { return cut(a.Tool + " " + string(a.Args)) }

// digestText shows a digest: `sha256:1a2b3c4d5e6f, 52 bytes, status 200`.
func digestText(d *runlog.Digest) string {
	s := fmt.Sprintf("sha256:%s, %d bytes", short(d.SHA256), d.Size)
	if d.Status != 0 {
		s += fmt.Sprintf(", status %d", d.Status)
	}
	return s
}

// short cuts a hex hash to 12 digits.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
