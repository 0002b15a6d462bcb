package compile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// recordedTool answers every call with the result the recording holds for
// the step being run, and keeps what it was sent.
type recordedTool struct {
	player *player
}

type player struct {
	step    int            // the step being run, 1-based
	results map[int][]byte // recorded result body by step
	sent    map[int]json.RawMessage
}

func (recordedTool) Effect() ast.Effect { return ast.EffectRead }

func (r recordedTool) Call(_ context.Context, args []byte) (*tool.Observation, error) {
	p := r.player
	p.sent[p.step] = append(json.RawMessage(nil), args...)
	body, ok := p.results[p.step]
	if !ok {
		return &tool.Observation{Status: 500, Headers: map[string]string{}, Body: "no recorded result"}, nil
	}
	obs, err := tool.ObserveToolResult(body)
	if err != nil {
		return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: string(body)}, nil
	}
	return obs, nil
}

// TestSelfReplay replays every compiled skill against the recording it
// was compiled from: each step gets the result recorded for its call.
// Every check the compiler derived must hold there (a step is passed, or
// unchecked when the recording has no usable result), and every call must
// send exactly the recorded arguments — each hole fills, from the
// recording's own results, with the value the agent sent. Inputs get the
// recorded (redacted) text. So no bind, pattern or assert the compiler
// writes can be one the runtime does not evaluate as the compiler meant.
func TestSelfReplay(t *testing.T) {
	for _, path := range append(traceFiles(t), extraTraces(t)...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, out, skill := compileParsed(t, path)
			p := &player{results: map[int][]byte{}, sent: map[int]json.RawMessage{}}
			recorded := map[int]json.RawMessage{}
			stepOfCall := map[int]int{}
			okResult := map[int]bool{}
			n := 0
			for _, rec := range tr.Records {
				switch rec := rec.(type) {
				case *trace.Call:
					n++
					stepOfCall[rec.I] = n
					recorded[n] = rec.Args
				case *trace.Result:
					if s, ok := stepOfCall[rec.I]; ok {
						p.results[s] = rec.Body
						okResult[s] = rec.OK
					}
				}
			}
			reg := tool.Registry{}
			for _, st := range skill.Steps {
				reg[st.Action.Tool] = recordedTool{player: p}
			}
			// Each input gets a stand-in of its own (a replay refuses to
			// send a redaction placeholder); the comparison below puts
			// the recorded placeholders and the stand-ins on one footing.
			vars := map[string]string{}
			for _, name := range out.Summary.Inputs {
				vars[name] = standIn(name)
			}
			res := replay.Run(context.Background(), skill, replay.Options{
				Tools: reg, Yes: true, Vars: vars,
				Clock:       func() time.Time { return recordedDay(tr) },
				OnStepStart: func(st *ast.Step) { p.step = st.Number },
			})
			// A recorded string that holds a template hole is filled at
			// replay; its open question says so.
			templated := map[int]bool{}
			for _, q := range out.Summary.Questions {
				if q.Kind == compile.KindTemplateLiteral {
					templated[q.Step] = true
				}
			}
			for _, st := range res.Record.Steps {
				if st.Outcome == runlog.Failed {
					if !okResult[st.N] {
						continue // failed while recording: no asserts, but the runtime may still refuse it
					}
					t.Errorf("step %d fails against its own recording: %v", st.N, st.Failures)
					continue
				}
				if !templated[st.N] && !sameJSON(unInput(p.sent[st.N]), unRedact(recorded[st.N])) {
					t.Errorf("step %d sent %s; the recording sent %s", st.N, p.sent[st.N], recorded[st.N])
				}
			}
		})
	}
}

// standIn is the value a self-replay gives the input name.
func standIn(name string) string { return "⟦input " + name + "⟧" }

var standIns = regexp.MustCompile(`⟦input [A-Za-z0-9_]+⟧`)

// unInput and unRedact write every input's stand-in in sent arguments, and
// every redaction placeholder in recorded ones, as one token, so the two
// compare equal where an input stood for a placeholder. Which input
// stands for which placeholder is TestFindingsEffects's concern.
func unInput(args []byte) []byte { return standIns.ReplaceAll(args, []byte("⟦secret⟧")) }

func unRedact(args []byte) []byte {
	// Decoded and encoded again, so an escaped placeholder (\u00ab…) is
	// found too.
	var v any
	if json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = b
		}
	}
	s := string(args)
	ms := redact.Markers(s, nil)
	for i := len(ms) - 1; i >= 0; i-- {
		s = s[:ms[i].Start] + "⟦secret⟧" + s[ms[i].End:]
	}
	return []byte(s)
}

// sameJSON compares two JSON documents by value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// recordedDay is the recording's start, the clock {{today}} reads.
func recordedDay(tr *trace.Trace) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, tr.Meta.StartedAt); err == nil {
		return t
	}
	return time.Date(2026, 7, 18, 12, 0, 0, 0, time.UTC)
}
