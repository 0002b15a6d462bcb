package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// stopWait bounds how long stopping a recording waits for the recorded
// calls still in flight, so that their results make it into the trace. A
// call slower than that keeps its call record without a result.
const stopWait = 10 * time.Second

func (p *Proxy) addControlTools() {
	p.server.AddTool(&mcp.Tool{
		Name:        mcpx.StartRecording,
		Description: "Start recording a trace of the tool calls that follow, to <trace-dir>/<name>-<n>.jsonl (n counts up; an existing trace is never overwritten). Fails if a recording is already running.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The trace's name, e.g. weekly-bookings."}},"required":["name"]}`),
	}, p.startRecording)
	p.server.AddTool(&mcp.Tool{
		Name:        mcpx.Note,
		Description: "Add a note to the running recording: say what the next step is for before you take it.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"What the next step is for."}},"required":["text"]}`),
	}, p.note)
	p.server.AddTool(&mcp.Tool{
		Name:        mcpx.StopRecording,
		Description: "Stop the running recording and report its trace file and how many calls it holds.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, p.stopRecording)
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(s string) *mcp.CallToolResult {
	res := textResult(s)
	res.IsError = true
	return res
}

// stringArg returns the string argument key of a control tool call, or the
// error result to answer with when it is missing or not a string.
func stringArg(req *mcp.CallToolRequest, key string) (string, *mcp.CallToolResult) {
	var args map[string]json.RawMessage
	_ = json.Unmarshal(req.Params.Arguments, &args)
	var s string
	raw, ok := args[key]
	if !ok || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", errorResult(fmt.Sprintf("%s needs the argument %q, a string.", req.Params.Name, key))
	}
	return s, nil
}

func (p *Proxy) startRecording(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, bad := stringArg(req, "name")
	if bad != nil {
		return bad, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rec != nil {
		return textResult(fmt.Sprintf("Already recording to %s. Call %s first: recordings never nest, and this one was left untouched.", p.rec.w.Path(), mcpx.StopRecording)), nil
	}
	w, err := trace.Create(trace.WriterOptions{
		Dir:         p.opts.TraceDir,
		Name:        name,
		Wrapped:     p.wrapped(),
		Servers:     p.servers(),
		Annotations: p.annotations(),
		Redactor:    p.opts.Redactor,
		Now:         p.opts.Now,
	})
	if err != nil {
		return errorResult("Could not start recording: " + err.Error()), nil
	}
	p.rec = &recording{w: w}
	return textResult(fmt.Sprintf("Recording to %s. Call %s before each step to say what it is for, and %s when you are done.", w.Path(), mcpx.Note, mcpx.StopRecording)), nil
}

// annotations returns the declared hints of every exposed tool that
// declared any, by exposed name.
func (p *Proxy) annotations() map[string]trace.Annotations {
	out := map[string]trace.Annotations{}
	for _, route := range p.router.Routes() {
		if a, ok := route.Annotations(); ok {
			out[route.Exposed] = a
		}
	}
	return out
}

func (p *Proxy) note(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, bad := stringArg(req, "text")
	if bad != nil {
		return bad, nil
	}
	p.mu.Lock()
	rec := p.rec
	p.mu.Unlock()
	notRecording := textResult(fmt.Sprintf("Not recording, so the note was not kept. Call %s to start a trace.", mcpx.StartRecording))
	if rec == nil {
		return notRecording, nil
	}
	if err := rec.w.Note(p.redactNote(text)); errors.Is(err, trace.ErrClosed) {
		return notRecording, nil
	} else if err != nil {
		return errorResult("Could not write the note: " + err.Error()), nil
	}
	return textResult("Noted."), nil
}

// redactNote returns a note as the trace keeps it. A note becomes a step's
// title and intent in a compiled skill, so it is redacted like the
// arguments and results, JSON pasted into it included; the agent's own
// call is left as it was.
func (p *Proxy) redactNote(text string) string {
	return redact.Text(p.opts.Redactor, "", text)
}

func (p *Proxy) stopRecording(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	path, calls, err := p.stop()
	switch {
	case path == "":
		return textResult(fmt.Sprintf("Not recording, so there is nothing to stop. Call %s to start a trace.", mcpx.StartRecording)), nil
	case err != nil:
		return errorResult(fmt.Sprintf("Stopped recording to %s (%s), but the trace may be incomplete: %v", path, words.Count(calls, "call"), err)), nil
	}
	return textResult(fmt.Sprintf("Stopped recording. The trace %s holds %s.", path, words.Count(calls, "call"))), nil
}

// stop ends the recording in progress, if any: new calls pass unrecorded
// at once, recorded calls in flight get up to stopWait to finish, and the
// file is closed. path is "" when nothing was recording.
func (p *Proxy) stop() (path string, calls int, err error) {
	p.mu.Lock()
	rec := p.rec
	p.rec = nil
	p.mu.Unlock()
	if rec == nil {
		return "", 0, nil
	}
	done := make(chan struct{})
	go func() {
		rec.inflight.Wait()
		close(done)
	}()
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	err = rec.w.Close()
	return rec.w.Path(), rec.w.Calls(), err
}
