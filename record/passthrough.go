package record

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/trace"
)

// forward returns the handler of one downstream tool: the call goes to the
// downstream whether or not a recording is running; while one is, a call
// record is written before and a result record after, with ms measured
// around the downstream call alone. What the agent gets back is the
// downstream's result, never the redacted copy. An agent on a protocol
// revision without server-initiated requests gets the downstream's
// requests as input requests of the call (see rounds.go).
func (p *Proxy) forward(route *mcpx.Route) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if p.opts.Policy != nil && req.Params.RequestState == "" {
			dec, res := p.gate(ctx, route, req)
			if res != nil {
				return res, nil
			}
			ctx = context.WithValue(ctx, decisionKey{}, dec)
		}
		if roundTrips(req.Session) {
			return p.forwardRounds(ctx, route, req)
		}
		token := req.Params.GetProgressToken()
		if token != nil {
			defer p.progress.watch(token, req.Session)()
		}
		live, done := p.relay.begin(ctx, route.Downstream, req.Session, token, nil)
		defer done()
		res, raw := p.callDownstream(ctx, route, req, live)
		if slot, ok := ctx.Value(rawKey{}).(*rawSlot); ok {
			slot.raw = raw
		}
		return res, nil
	}
}

// callDownstream makes the call on the downstream and records it.
func (p *Proxy) callDownstream(ctx context.Context, route *mcpx.Route, req *mcp.CallToolRequest, live *liveCall) (*mcp.CallToolResult, json.RawMessage) {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	rc := p.recordCall(route.Exposed, args, toolUseID(req.Params.Meta))
	if roundTrips(req.Session) {
		p.levelFromMeta(ctx, route.Downstream, req.Params.Meta)
	}
	start := time.Now()
	res, raw, err := p.router.Call(ctx, route.Exposed, args, p.modernMeta(route.Downstream, req, forwardMeta(req.Params.Meta)))
	ms := time.Since(start).Milliseconds()
	cancelled := err != nil && ctx.Err() != nil
	res, raw = settle(res, raw, err, cancelled)
	x := rc.extras(live)
	x.Policy = decisionFrom(ctx)
	p.recordResult(rc, route.Exposed, res, raw, ms, cancelled, x)
	return res, raw
}

// settle returns what the agent gets for a forwarded call, and the
// trace keeps: the downstream's result and its exact JSON, or, for a call
// that failed or that the agent cancelled, an error result saying so.
func settle(res *mcp.CallToolResult, raw json.RawMessage, err error, cancelled bool) (*mcp.CallToolResult, json.RawMessage) {
	switch {
	case cancelled:
		return errorResult("reelier: the client cancelled the call"), nil
	case err != nil:
		return errorResult("reelier: " + err.Error()), nil
	}
	return res, raw
}

// recCall is a forwarded call as the recording in progress, if any, has
// it.
type recCall struct {
	rec      *recording // nil when nothing was recording
	i        int        // the call index
	recorded bool       // the call record was written
}

// recordCall writes the call record of a forwarded call while a
// recording runs, before the call goes downstream; recordResult must
// follow.
func (p *Proxy) recordCall(tool string, args json.RawMessage, toolUseID string) recCall {
	p.mu.Lock()
	rec := p.rec
	if rec != nil {
		rec.inflight.Add(1)
	}
	p.mu.Unlock()
	if rec == nil {
		return recCall{}
	}
	i, err := rec.w.Call(tool, args, toolUseID)
	if err != nil && !errors.Is(err, trace.ErrClosed) {
		p.warnf("the call to %q was not recorded: %v", tool, err)
	}
	return recCall{rec: rec, i: i, recorded: err == nil}
}

// extras closes the call in flight and returns what it kept, for its
// result record; nothing when the call is not recorded.
func (c recCall) extras(live *liveCall) trace.ResultExtras {
	if !c.recorded {
		return trace.ResultExtras{}
	}
	return live.extras()
}

// recordResult writes the result record of a call recordCall wrote, with
// ms measured around the downstream call alone, and ends the call.
func (p *Proxy) recordResult(c recCall, tool string, res *mcp.CallToolResult, raw json.RawMessage, ms int64, cancelled bool, x trace.ResultExtras) {
	if c.rec == nil {
		return
	}
	defer c.rec.inflight.Done()
	if !c.recorded {
		return
	}
	body := raw
	if body == nil {
		body, _ = json.Marshal(res)
	}
	x.Cancelled = cancelled
	if err := c.rec.w.ResultWith(c.i, !res.IsError, ms, body, x); err != nil && !errors.Is(err, trace.ErrClosed) {
		p.warnf("the result of %q was not recorded: %v", tool, err)
	}
}

// The SDK re-encodes what it decoded, which drops the fields its types do
// not model (a tool's "execution", say) and turns numbers into float64.
// The middleware below sends the downstream's exact JSON on instead: tool
// definitions in tools/list, and results in tools/call. Only the fields
// the SDK adds on the proxy's side (_meta entries, resultType) are merged
// in.

type rawKey struct{}

// rawSlot receives a tool call's exact downstream result from forward.
type rawSlot struct{ raw json.RawMessage }

func (p *Proxy) passthrough(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return &toolList{ListToolsResult: list, raw: p.toolDefs()}, nil
			}
			return res, err
		case "tools/call":
			slot := &rawSlot{}
			res, err := next(context.WithValue(ctx, rawKey{}, slot), method, req)
			if call, ok := res.(*mcp.CallToolResult); ok && err == nil && slot.raw != nil {
				return &callResult{CallToolResult: call, raw: slot.raw}, nil
			}
			return res, err
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			if err == nil {
				p.setLevel(ctx, req)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// toolList is a tools/list result whose downstream tools are encoded as
// the downstream sent them (mcpx.RawToolList, shared with reelier mock).
type toolList struct {
	*mcp.ListToolsResult
	raw map[string]json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (l *toolList) MarshalJSON() ([]byte, error) {
	return (&mcpx.RawToolList{ListToolsResult: l.ListToolsResult, Raw: l.raw}).MarshalJSON()
}

// callResult is a tools/call result encoded as the downstream sent it,
// plus what the proxy's side added (mcpx.RawCallResult, shared with
// reelier mock).
type callResult struct {
	*mcp.CallToolResult
	raw json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (c *callResult) MarshalJSON() ([]byte, error) {
	return (&mcpx.RawCallResult{CallToolResult: c.CallToolResult, Raw: c.raw}).MarshalJSON()
}
