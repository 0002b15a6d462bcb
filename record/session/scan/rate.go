package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/trace"
)

// topBlockers is how many blocking tools the rate names.
const topBlockers = 5

// Rate says how much of a history replays without risk: of the sessions
// with a replayable call (Replayable), how many made only calls the
// compiler classifies read (ReadOnly), and how many miss that only
// because of tools whose names no verb explains (UnknownOnly) — the ones
// a verb-list addition would turn read-only.
type Rate struct {
	ReadOnly    int       `json:"readOnly"`
	Replayable  int       `json:"replayable"`
	UnknownOnly int       `json:"unknownOnly"`
	Blockers    []Blocker `json:"topBlockers"`
}

// Blocker is an unknown-verb tool and the number of UnknownOnly sessions
// it appears in.
type Blocker struct {
	Tool     string `json:"tool"`
	Sessions int    `json:"sessions"`
}

// Percent is ReadOnly as a share of Replayable, 0 when there are none.
func (r Rate) Percent() float64 {
	if r.Replayable == 0 {
		return 0
	}
	return 100 * float64(r.ReadOnly) / float64(r.Replayable)
}

// rate classifies every replayed tool the entries use and works out the
// statistics; it also sets each entry's ReadOnly.
func rate(entries []*Entry) Rate {
	classes := classifyTools(entries)
	r := Rate{Replayable: len(entries)}
	blockers := map[string]int{}
	for _, e := range entries {
		readOnly, unknownOnly := true, true
		var unknown []string
		for tool := range e.tools {
			c := classes[tool]
			if c.Effect == ast.EffectRead {
				continue
			}
			readOnly = false
			if c.Unclassified {
				unknown = append(unknown, tool)
			} else {
				unknownOnly = false
			}
		}
		e.ReadOnly = readOnly
		switch {
		case readOnly:
			r.ReadOnly++
		case unknownOnly:
			r.UnknownOnly++
			for _, t := range unknown {
				blockers[t]++
			}
		}
	}
	for t, n := range blockers {
		r.Blockers = append(r.Blockers, Blocker{Tool: t, Sessions: n})
	}
	sort.Slice(r.Blockers, func(i, j int) bool {
		a, b := r.Blockers[i], r.Blockers[j]
		if a.Sessions != b.Sessions {
			return a.Sessions > b.Sessions
		}
		return a.Tool < b.Tool
	})
	if len(r.Blockers) > topBlockers {
		r.Blockers = r.Blockers[:topBlockers]
	}
	if r.Blockers == nil {
		r.Blockers = []Blocker{}
	}
	return r
}

// classifyTools asks the compiler how it classifies each tool, by
// compiling a trace that calls each once: the classification depends on
// the tool name alone (transcripts carry no annotations), so this is the
// very effect a compiled skill would give the step.
func classifyTools(entries []*Entry) map[string]compile.Classification {
	var names []string
	seen := map[string]bool{}
	for _, e := range entries {
		for t := range e.tools {
			if !seen[t] {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	out := map[string]compile.Classification{}
	if len(names) == 0 {
		return out
	}
	sort.Strings(names)
	tr, err := toolTrace(names)
	if err == nil {
		var res *compile.Output
		if res, err = compile.Compile(tr, compile.Options{Source: "scan"}); err == nil {
			for _, se := range res.Summary.StepEffects {
				out[names[se.Step-1]] = se.Classification
			}
			return out
		}
	}
	// The compiler refused the probe: say nothing is known rather than
	// guess, so no session counts as read-only.
	for _, n := range names {
		out[n] = compile.Classification{Effect: ast.EffectDestructive, Reason: fmt.Sprintf("not classified: %v", err)}
	}
	return out
}

// toolTrace is a trace with one successful call of each tool.
func toolTrace(names []string) (*trace.Trace, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	seq := 0
	put := func(r trace.Record) error {
		defer func() { seq++ }()
		return enc.Encode(r)
	}
	if err := put(&trace.Meta{T: trace.KindMeta, Seq: seq, Name: "scan", StartedAt: "2000-01-01T00:00:00.000Z", Wrapped: []string{}}); err != nil {
		return nil, err
	}
	for i, n := range names {
		if err := put(&trace.Call{T: trace.KindCall, Seq: seq, I: i, TS: "2000-01-01T00:00:00.000Z", Tool: n, Args: json.RawMessage("{}")}); err != nil {
			return nil, err
		}
		if err := put(&trace.Result{T: trace.KindResult, Seq: seq, I: i, OK: true, Body: json.RawMessage(`{"content":[]}`)}); err != nil {
			return nil, err
		}
	}
	return trace.Read(&b)
}
