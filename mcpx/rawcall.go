package mcpx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/tool/jsondata"
)

// A tool call can also go to a local downstream as bytes, beside its MCP
// client session: the recording proxy's fast path (record/fast.go) writes
// the agent's tools/call to the server's stdin itself, under a request id
// from a space the SDK's client never uses (a string with RawIDPrefix; the
// SDK numbers its requests), and the server's FrameReader takes the
// response to that id off the stream before the SDK would read it. The
// two writers share the server's stdin under one lock, a whole line each.
// A raw call ends the way Router.Call does — with the response, with the
// server's JSON-RPC error, at the call limit (which the relay pauses as it
// pauses the others), or with the server's exit — and its errors read the
// same.

// RawIDPrefix starts the request id of every call made with CallRaw:
// short, so that a response is about the size it would be to the SDK's
// numbered request (a response over the limit is reported by its size).
const RawIDPrefix = "fp-"

// methodCallTool is the method of a tool call.
const methodCallTool = "tools/call"

// RawResult is how a call made with CallRaw ended.
type RawResult struct {
	// Result is the "result" member of the server's response, exactly
	// as it sent it; valid only during the callback. nil when Err is
	// set.
	Result json.RawMessage
	// Res is Result decoded, as the SDK's client decodes it.
	Res *mcp.CallToolResult
	// Err says why there is no result, as Router.Call would: a
	// *DownstreamError naming the server (its JSON-RPC error, the call
	// limit, its exit).
	Err error
}

// RawCall is a call in flight made with CallRaw.
type RawCall struct {
	d     *Downstream
	id    string // the request id, without quotes
	done  func(RawResult)
	timer *time.Timer // the call limit, or nil
}

// rawCalls are a downstream's raw calls in flight.
type rawCalls struct {
	next    atomic.Uint64
	mu      sync.Mutex
	pending map[string]*RawCall // by request id
	ended   error               // the server's output ended with this error
}

// pipeWriter is a server's stdin, written to by the SDK's session and by
// CallRaw: each Write is one whole message, under one lock.
type pipeWriter struct {
	mu sync.Mutex
	f  *os.File
	// cancels counts the notifications/cancelled written (the SDK sends
	// one, off the caller's path, for a call whose context ended); wrote
	// is signalled after each, so close can wait for one it expects.
	cancels atomic.Int64
	wrote   chan struct{}
}

// cancelledMethod is how the SDK's compact encoding names the method of
// a cancellation notification.
var cancelledMethod = []byte(`"method":"notifications/cancelled"`)

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.f.Write(p)
	if err == nil && bytes.Contains(p, cancelledMethod) {
		w.cancels.Add(1)
		select {
		case w.wrote <- struct{}{}:
		default:
		}
	}
	return n, err
}

// awaitCancels waits, at most limit, until want cancellation
// notifications have been written.
func (w *pipeWriter) awaitCancels(want int64, limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for w.cancels.Load() < want {
		select {
		case <-w.wrote:
		case <-t.C:
			return
		}
	}
}

func (w *pipeWriter) Close() error { return w.f.Close() }

// RawCapable reports whether tool calls can go to d as bytes (CallRaw):
// a server run as a child process, spoken to on a revision before
// 2026-07-28 (on which a call may take rounds the SDK's client fulfils).
func (d *Downstream) RawCapable() bool {
	return d.remote == nil && d.pipe != nil && !d.Modern()
}

// CallRaw sends a tools/call to d whose params are the JSON object params
// (with d's own name for the tool) and returns the call in flight; done is
// called once with how it ended, unless Cancel stops it first: on d's
// reading goroutine for a response, else on a goroutine of its own (a
// server that is gone, or that could not be written to, fails the call
// that way too). The call has d's call limit.
func (d *Downstream) CallRaw(params []byte, done func(RawResult)) *RawCall {
	rc := &d.raw
	c := &RawCall{d: d, id: RawIDPrefix + strconv.FormatUint(rc.next.Add(1), 10), done: done}
	fail := func(err error) {
		go c.done(RawResult{Err: d.fault(context.Background(), err)})
	}
	if err := d.gone(); err != nil {
		fail(err)
		return c
	}
	line := make([]byte, 0, len(params)+80)
	line = append(line, `{"jsonrpc":"2.0","id":"`...)
	line = append(line, c.id...)
	line = append(line, `","method":"tools/call","params":`...)
	line = append(line, params...)
	line = append(line, "}\n"...)
	rc.mu.Lock()
	if rc.ended != nil {
		err := rc.ended
		rc.mu.Unlock()
		fail(fmt.Errorf("calling %q: %w", methodCallTool, err))
		return c
	}
	if rc.pending == nil {
		rc.pending = map[string]*RawCall{}
	}
	rc.pending[c.id] = c
	if d.callTimeout > 0 {
		c.timer = time.AfterFunc(d.callTimeout, c.expire)
	}
	rc.mu.Unlock()
	if timer := c.timer; timer != nil {
		d.limitMu.Lock()
		if d.rs != nil && d.rs.paused > 0 {
			timer.Stop() // restarted when the agent has answered
		}
		d.limits["r"+c.id] = timer
		d.limitMu.Unlock()
	}
	if _, err := d.pipe.Write(line); err != nil && c.take() {
		fail(fmt.Errorf("calling %q: %w", methodCallTool, err))
	}
	return c
}

// take removes the call from the calls in flight; only the caller that
// took it ends it.
func (c *RawCall) take() bool {
	rc := &c.d.raw
	rc.mu.Lock()
	_, ok := rc.pending[c.id]
	delete(rc.pending, c.id)
	timer := c.timer
	rc.mu.Unlock()
	if !ok {
		return false
	}
	if timer != nil {
		timer.Stop()
		c.d.limitMu.Lock()
		if c.d.limits["r"+c.id] == timer {
			delete(c.d.limits, "r"+c.id)
		}
		c.d.limitMu.Unlock()
	}
	return true
}

// Cancel ends the call for a client that cancelled it: the server is told
// (notifications/cancelled, as the SDK's client tells it) and done is not
// called. It reports false when the call had ended already, done having
// been called or being called.
func (c *RawCall) Cancel() bool {
	if !c.take() {
		return false
	}
	c.notifyCancelled()
	return true
}

// expire ends the call at its limit.
func (c *RawCall) expire() {
	if !c.take() {
		return
	}
	c.notifyCancelled()
	c.done(RawResult{Err: &DownstreamError{Index: c.d.Index, Name: c.d.Name, Err: &CallTimeoutError{Limit: c.d.callTimeout}}})
}

// notifyCancelled tells the server the call was cancelled, with the
// reason the SDK's client gives (its context's error).
func (c *RawCall) notifyCancelled() {
	line := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"` + context.Canceled.Error() + `","requestId":"` + c.id + `"}}` + "\n"
	c.d.pipe.Write([]byte(line))
}

// divert takes the responses to raw calls off the server's output, and
// tells the relay of each notification in the order of the stream (so
// that one sent before a response is counted on that response's call).
func (d *Downstream) divert(f *Frame) bool {
	if f.Method != "" {
		if f.ID == nil && d.rs != nil && d.rs.relay != nil {
			var params []byte
			EachMember(f.Line, func(key, value []byte) bool {
				if KeyIs(key, "params") {
					params = value
				}
				return true
			})
			d.seen(f.Method, json.RawMessage(params))
		}
		return false
	}
	id := f.ID
	if len(id) < len(RawIDPrefix)+2 || id[0] != '"' || !bytes.HasPrefix(id[1:], []byte(RawIDPrefix)) {
		return false
	}
	rc := &d.raw
	rc.mu.Lock()
	c := rc.pending[string(id[1:len(id)-1])]
	rc.mu.Unlock()
	if c == nil || !c.take() {
		return true // cancelled or out of time already: dropped, as the SDK drops it
	}
	var result, wireErr []byte
	EachMember(f.Line, func(key, value []byte) bool {
		switch {
		case KeyIs(key, "result"):
			result = value
		case KeyIs(key, "error"):
			wireErr = nil
			if string(value) != "null" {
				wireErr = value
			}
		}
		return true
	})
	switch {
	case wireErr != nil:
		e := &jsonrpc.Error{}
		json.Unmarshal(wireErr, e) // checkMessage decoded it so
		c.done(RawResult{Err: d.fault(context.Background(), fmt.Errorf("calling %q: %w", methodCallTool, e))})
	case result == nil:
		// The SDK decodes no result as the end of its input.
		go c.done(RawResult{Err: d.fault(context.Background(), fmt.Errorf("calling %q: %w", methodCallTool, io.EOF))})
	default:
		if isError, ok := plainResult(result); ok {
			c.done(RawResult{Result: result, Res: &mcp.CallToolResult{IsError: isError}})
			return true
		}
		res := &mcp.CallToolResult{}
		if err := res.UnmarshalJSON(result); err != nil {
			c.done(RawResult{Err: d.fault(context.Background(), fmt.Errorf("calling %q: %w", methodCallTool, err))})
			return true
		}
		c.done(RawResult{Result: result, Res: res})
	}
	return true
}

// outputEnded fails the raw calls in flight when the server's output has
// ended (it exited, or closed it), as the SDK's client fails its own.
func (d *Downstream) outputEnded(err error) {
	if err == nil {
		err = io.EOF
	}
	rc := &d.raw
	rc.mu.Lock()
	rc.ended = err
	var calls []*RawCall
	for _, c := range rc.pending {
		calls = append(calls, c)
	}
	rc.mu.Unlock()
	if len(calls) == 0 {
		return
	}
	go func() {
		for _, c := range calls {
			if c.take() {
				c.done(RawResult{Err: d.fault(context.Background(), fmt.Errorf("calling %q: %w", methodCallTool, err))})
			}
		}
	}()
}

// plainResult reads the usual tool result — text content, and perhaps
// isError — without the SDK's decoding (which allocates a 32 KiB buffer a
// message): whether it is an error result, and true when result is of
// that shape, which the SDK decodes without fail. Any other result is
// decoded by the SDK (CallToolResult.UnmarshalJSON), for its verdict.
func plainResult(result []byte) (isError, ok bool) {
	var seenContent, seenIsError bool
	ok = EachMember(result, func(key, value []byte) bool {
		switch string(key) {
		case `"content"`:
			if seenContent || !textContent(value) {
				return false
			}
			seenContent = true
		case `"isError"`:
			if seenIsError {
				return false
			}
			seenIsError = true
			switch string(value) {
			case "true":
				isError = true
			case "false", "null":
			default:
				return false
			}
		default:
			return false
		}
		return true
	})
	return isError, ok
}

// textContent reports whether value is null or an array of text blocks
// with nothing but a type and a text.
func textContent(value []byte) bool {
	if string(value) == "null" {
		return true
	}
	if len(value) < 2 || value[0] != '[' {
		return false
	}
	i := jsondata.SpaceEnd(value, 1)
	if i < len(value) && value[i] == ']' {
		return true
	}
	for i < len(value) {
		end := jsondata.ValueEnd(value, i)
		if !textBlock(value[i:end]) {
			return false
		}
		i = jsondata.SpaceEnd(value, end)
		if i >= len(value) {
			return false
		}
		switch value[i] {
		case ']':
			return jsondata.SpaceEnd(value, i+1) == len(value)
		case ',':
			i = jsondata.SpaceEnd(value, i+1)
		default:
			return false
		}
	}
	return false
}

// textBlock reports whether b is {"type":"text","text":"…"}, the members
// in either order.
func textBlock(b []byte) bool {
	var typ, text int
	ok := EachMember(b, func(key, value []byte) bool {
		switch string(key) {
		case `"type"`:
			typ++
			return string(value) == `"text"`
		case `"text"`:
			text++
			return len(value) >= 2 && value[0] == '"'
		}
		return false
	})
	return ok && typ == 1 && text <= 1
}
