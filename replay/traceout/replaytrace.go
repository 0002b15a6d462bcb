// Package replaytrace writes a replay as a trace (SPEC.md §12): what
// `reelier run --trace FILE` leaves, in the format the recording proxy
// writes, so that `reelier trace` prints it, `reelier compile` makes a
// skill of it and `reelier diff` sets it beside the recording it came from.
//
// A Recorder hooks into replay.Options.OnStep and keeps, for every step
// whose tool was called, the filled call and what came back; WriteFile
// writes the trace atomically once the run is over. The trace holds:
//
//   - one meta record: the skill's name, the run's start, "observed":
//     "replay", and the skill's Servers section (see Options.Wrapped);
//   - per step whose tool was called, in step order: a note with the
//     step's title, a call with the filled arguments, and a result.
//
// Steps that never called their tool (skipped, refused by the effect
// gate, an action that could not be filled, an unknown tool) leave no
// record. Everything goes through the trace redactor the recorder uses,
// the same way: arguments and result bodies as JSON, notes and commands
// as text.
//
// The result of a call is rebuilt from its observation (mcpx hands the
// replay an Observation, not the server's own result): ResultBody.
package traceout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// Observed is the meta record's "observed" value of a replay trace: the
// calls are the ones a replay made, not ones an agent made.
const Observed = "replay"

// StatusMeta is the `_meta` key of a rebuilt result that carries a status
// other than 200 or 500 (a builtin http tool's 404, say), which an MCP
// result cannot say otherwise.
const StatusMeta = "reelier/status"

// toolFailed starts the message of a step whose tool was called and
// failed without a result (docs/replay.md §1, step 6).
const toolFailed = "Tool execution failed"

// Options configure a Recorder.
type Options struct {
	// Redactor blanks secrets; nil means the one the environment
	// configures (trace.RedactorFromEnv), which the recorder uses too.
	Redactor *redact.Redactor
	// Wrapped is set when the run's servers were started from --wrap
	// commands rather than from the skill's Servers section. The meta
	// record's "wrapped" is then empty: a command line is not written to
	// a trace by anyone but the recording proxy, whose command redaction
	// knows environment assignments. "servers" is the skill's section
	// either way, so a skill compiled from the trace lists them again.
	Wrapped bool
	// Now is the clock the call timestamps are read from; time.Now if
	// nil.
	Now func() time.Time
}

// Recorder collects the calls of one run of one skill.
type Recorder struct {
	skill *ast.Skill
	opts  Options

	mu    sync.Mutex
	calls []call
}

// call is one executed step.
type call struct {
	title string
	at    time.Time // when the call started, as near as the step tells
	ms    int64
	tool  string
	args  []byte
	obs   *tool.Observation // nil when the call failed
	err   string            // the failure, when obs is nil
}

// New returns a recorder for a run of skill.
func New(skill *ast.Skill, opts Options) *Recorder {
	if opts.Redactor == nil {
		opts.Redactor = redact.RedactorFromEnv()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Recorder{skill: skill, opts: opts}
}

// Attach makes a recorder for a run of skill with o and hooks it into
// o.OnStep, in front of the callback already there.
func Attach(o *replay.Options, skill *ast.Skill, opts Options) *Recorder {
	r := New(skill, opts)
	o.OnStep = r.Hook(o.OnStep)
	return r
}

// Hook returns an OnStep callback that records the step and then calls
// next, if not nil.
func (r *Recorder) Hook(next func(*replay.StepResult)) func(*replay.StepResult) {
	return func(sr *replay.StepResult) {
		r.Step(sr)
		if next != nil {
			next(sr)
		}
	}
}

// Step records one step's result: a step whose tool was called (it has
// an observation, or its first failure says the call failed) becomes a
// call; any other step is left out.
func (r *Recorder) Step(sr *replay.StepResult) {
	if sr == nil || sr.Action == nil {
		return
	}
	c := call{tool: sr.Action.Tool, args: bytes.Clone(sr.Action.Args), obs: sr.Observation}
	if sr.Step != nil {
		c.title = sr.Step.Title
	}
	if c.obs == nil {
		if len(sr.Failures) == 0 || !strings.HasPrefix(sr.Failures[0].Message, toolFailed) {
			return // the call never went out, or was stopped with nothing back
		}
		c.err = sr.Failures[0].Message
	}
	end := r.opts.Now()
	if sr.Record != nil {
		c.ms = sr.Record.Ms
	}
	c.at = end.Add(-time.Duration(c.ms) * time.Millisecond)
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

// Calls returns how many calls were recorded.
func (r *Recorder) Calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// WriteFile writes the trace to path atomically (a temporary file in the
// same folder, synced, then renamed over path), creating the folder when
// it is missing. startedAt is the run's start, the meta record's
// startedAt (replay.Result.Record.StartedAt).
func (r *Recorder) WriteFile(path, startedAt string) error {
	var buf bytes.Buffer
	if err := r.Write(&buf, startedAt); err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return atomicfile.Write(path, buf.Bytes(), 0o600)
}

// Write writes the trace as JSON Lines to w.
func (r *Recorder) Write(w io.Writer, startedAt string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	red := r.opts.Redactor
	enc := trace.NewEncoder(w)
	if startedAt == "" {
		startedAt = stamp(r.opts.Now())
	}
	enc.Put(r.meta(startedAt))
	for i, c := range r.calls {
		if c.title != "" {
			enc.Put(&trace.Note{T: trace.KindNote, TS: stamp(c.at), Text: red.String("", c.title)})
		}
		args, err := red.JSONValue(c.args)
		if err != nil {
			return fmt.Errorf("arguments of %q: %w", c.tool, err)
		}
		enc.Put(&trace.Call{T: trace.KindCall, I: i, TS: stamp(c.at), Tool: c.tool, Args: args})
		var body json.RawMessage
		ok := false
		if c.obs != nil {
			body, ok = ResultBody(c.obs), c.obs.Status < 400
		} else {
			body = errorBody(c.err)
		}
		if body, err = red.JSONValue(body); err != nil {
			return fmt.Errorf("result of %q: %w", c.tool, err)
		}
		enc.Put(&trace.Result{T: trace.KindResult, I: i, OK: ok, MS: c.ms, Body: body})
	}
	return enc.Err()
}

// meta is the trace's meta record.
func (r *Recorder) meta(startedAt string) *trace.Meta {
	red := r.opts.Redactor
	m := &trace.Meta{T: trace.KindMeta, Name: r.skill.Name(), StartedAt: startedAt, Wrapped: []string{}, Observed: Observed}
	for _, sv := range r.skill.Servers {
		command := red.String("", sv.Command)
		tools := make([]string, 0, len(sv.Tools))
		for _, t := range sv.Tools {
			tools = append(tools, t.Name)
		}
		var headers []string
		for _, h := range sv.Headers {
			headers = append(headers, red.String("", h.Text))
		}
		m.Servers = append(m.Servers, trace.Server{Name: red.String("", sv.Name), Command: command, Tools: tools, Headers: headers})
		if !r.opts.Wrapped {
			m.Wrapped = append(m.Wrapped, command)
		}
	}
	return m
}

// ResultBody rebuilds an MCP tool result (CallToolResult) from an
// observation, so that reading it back (tool.ParseToolResult, then
// Observation) gives the same status, body and json document:
//
//   - content is one text block holding the body, or none when the body
//     is empty;
//   - structuredContent is the observation's structured document when it
//     has one that is valid JSON;
//   - isError is set when the status is 400 or more (an MCP error result
//     is observed as 500);
//   - a status other than 200 and 500 is kept as `_meta`
//     {"reelier/status": N}.
//
// Headers are not kept. The original result's other blocks (images,
// resources) were observed as one-line descriptions and stay that way.
func ResultBody(obs *tool.Observation) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	if obs.Body != "" {
		b.WriteString(`{"type":"text","text":`)
		b.WriteString(jsondata.StdString(obs.Body))
		b.WriteString(`}`)
	}
	b.WriteString(`]`)
	if s := bytes.TrimSpace(obs.Structured); len(s) > 0 && json.Valid(s) {
		var c bytes.Buffer
		if json.Compact(&c, s) == nil {
			b.WriteString(`,"structuredContent":`)
			b.Write(c.Bytes())
		}
	}
	if obs.Status >= 400 {
		b.WriteString(`,"isError":true`)
	}
	if obs.Status != 200 && obs.Status != 500 {
		fmt.Fprintf(&b, `,"_meta":{%q:%d}`, StatusMeta, obs.Status)
	}
	b.WriteString(`}`)
	return b.Bytes()
}

// errorBody is the result of a call that failed without one: an error
// result with the failure as its text, as the recording proxy writes for
// a downstream that failed.
func errorBody(msg string) json.RawMessage {
	return json.RawMessage(`{"content":[{"type":"text","text":` + jsondata.StdString(msg) + `}],"isError":true}`)
}

func stamp(t time.Time) string { return t.UTC().Format(trace.TimeFormat) }
