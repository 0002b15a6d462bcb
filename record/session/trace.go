package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// How a trace built from a transcript was observed: the trace meta's
// "observed" value (trace.ObservedProxy is the recorder's own).
const (
	// ObservedStream is a transcript read from the agent harness's own
	// standard output as the session ran, a channel the session cannot
	// write to: an observation.
	ObservedStream = "stream"
	// ObservedFile is a transcript read from a file, which the session
	// itself (any process of the user, a shell command the agent ran) may
	// have written: a self-report, reconstructed after the fact.
	ObservedFile = "file"
)

// ErrNothingReplayable is returned by Trace for a session without one
// replayable call that has a result. Its text is the message users see.
var ErrNothingReplayable = errors.New("no deterministically-replayable tool calls found in this session — Reelier replays API/MCP tool workflows, not file edits or shell commands.")

// TraceOptions configure Trace and WriteTrace.
type TraceOptions struct {
	// Name is the trace's name (meta.name).
	Name string
	// Observed is ObservedFile or ObservedStream.
	Observed string
	// Redactor blanks secrets in arguments and results; nil applies the
	// always-on rules only.
	Redactor *redact.Redactor
	// Now gives meta.startedAt when no line of the transcript had a time;
	// time.Now if nil.
	Now func() time.Time
}

// WriteTrace writes the session's replayable calls as a trace (JSON Lines,
// §2 of the format): one meta record, then a call and a result record per
// call, and a note per reelier_note call, in transcript order, with seq
// and the call index i counting up from 0. Call records keep the agent's
// tool_use id. It needs a Session read with Options.Keep, and fails with
// ErrNothingReplayable when there is no call to write.
func (s *Session) WriteTrace(w io.Writer, opts TraceOptions) error {
	if !s.keep {
		return errors.New("session: WriteTrace needs a session read with Options.Keep")
	}
	if len(s.Calls) == 0 {
		return ErrNothingReplayable
	}
	red := opts.Redactor
	if red == nil {
		red = &redact.Redactor{}
	}
	started := s.StartedAt
	if started.IsZero() {
		now := opts.Now
		if now == nil {
			now = time.Now
		}
		started = now().UTC()
	}
	tw := &traceWriter{Encoder: trace.NewEncoder(w), red: red, index: map[*Call]int{}}
	wrapped := s.Servers()
	if wrapped == nil {
		wrapped = []string{}
	}
	tw.Put(&trace.Meta{T: trace.KindMeta, Name: opts.Name, StartedAt: stamp(started), Wrapped: wrapped, Observed: opts.Observed})
	for _, ev := range s.events {
		tw.event(ev, started)
	}
	return tw.Err()
}

// Trace returns the trace WriteTrace writes, read back through the trace
// package's own reader, so the compiler sees exactly what it would see in
// a file.
func (s *Session) Trace(opts TraceOptions) (*trace.Trace, error) {
	var buf bytes.Buffer
	if err := s.WriteTrace(&buf, opts); err != nil {
		return nil, err
	}
	return trace.Read(&buf)
}

// traceWriter writes records with consecutive seq numbers and remembers
// each call's index.
type traceWriter struct {
	*trace.Encoder
	red   *redact.Redactor
	index map[*Call]int
}

// event writes the records of one transcript event; calls that never got
// a usable result write nothing.
func (tw *traceWriter) event(ev event, started time.Time) {
	c := ev.call
	switch {
	case ev.kind == evNote:
		tw.Put(&trace.Note{T: trace.KindNote, TS: stampOr(ev.at, started), Text: tw.red.String("", ev.note)})
	case !c.done:
	case ev.kind == evCall:
		args, err := tw.red.JSON(c.Input)
		if err != nil {
			tw.Fail(fmt.Errorf("arguments of %s: %w", c.Tool.Name, err))
			return
		}
		tw.index[c] = len(tw.index)
		tw.Put(&trace.Call{T: trace.KindCall, I: tw.index[c], TS: stampOr(c.At, started), Tool: c.Tool.Replay, Args: args, ToolUseID: c.ID})
	case ev.kind == evResult:
		body, err := tw.red.JSON(resultBody(c))
		if err != nil {
			tw.Fail(fmt.Errorf("result of %s: %w", c.Tool.Name, err))
			return
		}
		tw.Put(&trace.Result{T: trace.KindResult, I: tw.index[c], OK: c.OK, MS: c.MS, Body: body})
	}
}

// resultBody shapes a tool_result as the MCP CallToolResult a recording
// holds: {"content": [blocks…], "isError": true?}; a whole CallToolResult
// (Codex's) is kept as it is. A string content is one
// text block; an array is kept as it is; any other value becomes a text
// block of its JSON.
func resultBody(c *Call) []byte {
	if c.whole {
		return c.Content
	}
	var b bytes.Buffer
	b.WriteString(`{"content":`)
	switch c.Content[0] {
	case '[':
		b.Write(c.Content)
	case '"':
		b.WriteString(`[{"type":"text","text":`)
		b.Write(c.Content)
		b.WriteString(`}]`)
	default:
		text, _ := json.Marshal(string(c.Content))
		b.WriteString(`[{"type":"text","text":`)
		b.Write(text)
		b.WriteString(`}]`)
	}
	if !c.OK {
		b.WriteString(`,"isError":true`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func stamp(t time.Time) string { return t.UTC().Format(trace.TimeFormat) }

func stampOr(t, fallback time.Time) string {
	if t.IsZero() {
		return stamp(fallback)
	}
	return stamp(t)
}

// DefaultName is the name a skill compiled from the session gets when the
// user gives none: session-<the first 8 characters of the session's id,
// or, when no line named one, of the transcript file's name>. path is the
// transcript's path, "" for standard input.
func (s *Session) DefaultName(path string) string {
	id := s.ID
	if id == "" && path != "" {
		id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
		// A Gemini CLI checkpoint, checkpoint-<tag>.json, is named by its tag.
		if tag, ok := strings.CutPrefix(strings.TrimSuffix(id, ".json"), "checkpoint-"); ok && tag != "" {
			id = tag
		}
	}
	if id == "" {
		return "session"
	}
	if len(id) > 8 {
		id = id[:8]
	}
	return "session-" + id
}
