package record

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/trace"
)

// The fast path: a tools/call the agent sends over stdio (Transport) for a
// tool of a local downstream is, when nothing about it needs the SDK,
// taken off the agent's stream by its FrameReader (Divert) before the
// proxy's MCP server would read it, and written to the downstream's stdin
// as bytes (mcpx.Downstream.CallRaw): the arguments and _meta as the
// agent sent them, the tool's name the downstream's own, the request id
// one of the proxy's reserved space. The downstream's response is taken
// off its stream the same way and written to the agent with the agent's
// id: the downstream's result exactly as it sent it, which is what the SDK
// path sends on too (passthrough). Neither message is decoded into the
// SDK's types or re-encoded, and no goroutine stands between the agent's
// stream and the downstream's.
//
// What a call does besides is what the SDK path (forward, callDownstream)
// does, with the same functions: the call record before the call goes
// downstream and the result record after (recordCall, recordResult),
// the call in flight known to the relay (so the downstream's requests and
// notifications during it are relayed and kept on it), the call limit, a
// cancellation by the agent passed on and recorded as cancelled, a
// downstream's error or exit answered with the same error result.
//
// An agent on protocol revision 2026-07-28 takes it too (modern.go): its
// call's _meta checked as the SDK's server checks it and its protocol
// keys not sent on, its answer encoded as the SDK path encodes it (the
// resultType and serverInfo the SDK adds), and the call handed to the
// rounds machinery (rounds.go) mid-call when the downstream asks the
// agent something before it answers.
//
// Anything else goes the SDK path, the line passed on untouched: another
// method; params with members other than name, arguments and _meta (a
// later round of a 2026-07-28 call among them), or not of the usual
// types; a _meta with a progress token; from an agent on 2025-11-25, a
// _meta with the protocol's own keys (io.modelcontextprotocol/…); from
// one on 2026-07-28, a _meta without them, with ones the SDK would
// refuse, with a log level or another of them, or an agent that set a
// level with logging/setLevel; a tool that is not a downstream tool
// exposed as such (the control tools); a remote downstream or one on
// protocol revision 2026-07-28; an agent that has not initialized; a
// request id that is not a string or an integer, or is already in
// flight; a batch, and what the FrameReader rejects. Options.NoFastPath
// turns it off.

// fastConn is the fast path of one agent connection (Transport).
type fastConn struct {
	p *Proxy
	w *agentWriter
	t mcp.Transport // the transport it serves

	lastMeta metaCache // modernMeta's, on the reading goroutine only

	mu      sync.Mutex
	session *mcp.ServerSession   // the agent's session, once known
	calls   map[string]*fastCall // in flight, by the agent's request id (idKey)
}

// fastCall is a tools/call on the fast path.
type fastCall struct {
	fc    *fastConn
	key   string // idKey of id
	id    []byte // the agent's request id, as it sent it
	tool  string // the exposed name
	raw   *mcpx.RawCall
	rec   recCall
	live  *liveCall
	end   func() // ends live
	start time.Time
	// policy is the policy's decision (allow) when one is in force.
	policy *trace.PolicyDecision

	// For an agent on 2026-07-28 (modern.go): the rounds the call is
	// handed to when its downstream asks the agent, where its first
	// round stands (under fc.mu), and closed when that round is answered.
	rounds *roundCall
	round  roundState
	over   chan struct{}
}

func (p *Proxy) newFastConn(w *agentWriter, t mcp.Transport) *fastConn {
	fc := &fastConn{p: p, w: w, t: t, calls: map[string]*fastCall{}}
	p.fastMu.Lock()
	p.fastConns = append(p.fastConns, fc)
	p.fastMu.Unlock()
	return fc
}

// divert takes a message of the agent's off the stream when it is a
// tools/call for the fast path, or the cancellation of one.
func (fc *fastConn) divert(f *mcpx.Frame) bool {
	switch f.Method {
	case "tools/call":
		return f.ID != nil && fc.call(f)
	case "notifications/cancelled":
		return f.ID == nil && fc.cancelled(f)
	}
	return false
}

// idKey returns a request id's key, the same for every way of writing
// one id: a string by its value, a number with an integer value (the
// SDK's ids are strings or integers) by its digits. Other ids have none.
func idKey(id []byte) (string, bool) {
	switch {
	case len(id) >= 2 && id[0] == '"':
		if bytes.IndexByte(id, '\\') < 0 {
			return "s" + string(id[1:len(id)-1]), true
		}
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case len(id) > 0:
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return "", false
		}
		return "n" + strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// callParts are the params of a tools/call the fast path takes.
type callParts struct {
	name, args, meta []byte
}

// callParams picks the params of a tools/call line apart; false when
// anything in it is not as the fast path takes it.
func callParams(line []byte) (callParts, bool) {
	var params []byte
	usual := true
	mcpx.EachMember(line, func(key, value []byte) bool {
		switch string(key) {
		case `"jsonrpc"`, `"id"`, `"method"`:
		case `"params"`:
			usual = params == nil
			params = value
		default:
			usual = false
		}
		return usual
	})
	if !usual || len(params) == 0 || params[0] != '{' {
		return callParts{}, false
	}
	var c callParts
	mcpx.EachMember(params, func(key, value []byte) bool {
		var slot *[]byte
		switch string(key) {
		case `"name"`:
			slot = &c.name
		case `"arguments"`:
			slot = &c.args
		case `"_meta"`:
			slot = &c.meta
		default:
			usual = false
			return false
		}
		usual = *slot == nil
		*slot = value
		return usual
	})
	switch {
	case !usual,
		len(c.name) < 2 || c.name[0] != '"' || bytes.IndexByte(c.name, '\\') >= 0,
		c.args != nil && c.args[0] != '{',
		c.meta != nil && c.meta[0] != '{':
		return callParts{}, false
	}
	return c, true
}

// fastMeta reads the _meta of a call: the agent's id for it (toolUseID),
// and whether the fast path takes it (no progress token, none of the
// protocol's own keys). It returns the _meta to send on, nil for none.
func fastMeta(raw []byte) (meta []byte, toolUse string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, "", false
	}
	for k, v := range m {
		if k == "progressToken" || strings.HasPrefix(k, "io.modelcontextprotocol/") {
			return nil, "", false
		}
		if toolUse == "" && (k == "toolUseId" || strings.HasSuffix(k, "/toolUseId")) && len(v) > 0 && v[0] == '"' {
			json.Unmarshal(v, &toolUse)
		}
	}
	if len(m) == 0 {
		return nil, toolUse, true
	}
	return raw, toolUse, true
}

// agentSession returns the agent's session when the fast path may serve
// it: known (the proxy's only session, the first time) and initialized.
func (fc *fastConn) agentSession() *mcp.ServerSession {
	fc.mu.Lock()
	ss := fc.session
	fc.mu.Unlock()
	if ss == nil {
		n := 0
		for s := range fc.p.server.Sessions() {
			ss = s
			n++
		}
		if n != 1 {
			return nil
		}
	}
	if ss.InitializeParams() == nil {
		return nil
	}
	fc.mu.Lock()
	fc.session = ss
	fc.mu.Unlock()
	return ss
}

// call starts a tools/call on the fast path, or reports false to leave it
// to the SDK.
func (fc *fastConn) call(f *mcpx.Frame) bool {
	key, ok := idKey(f.ID)
	if !ok {
		return false
	}
	parts, ok := callParams(f.Line)
	if !ok {
		return false
	}
	p := fc.p
	name := string(parts.name[1 : len(parts.name)-1])
	if !p.fastTool(name) {
		return false
	}
	route, ok := p.router.Route(name)
	if !ok || !route.Downstream.RawCapable() {
		return false
	}
	ss := fc.agentSession()
	if ss == nil {
		return false
	}
	modern := roundTrips(ss)
	var meta []byte
	toolUse := ""
	switch {
	case modern:
		if meta, toolUse, ok = fc.modernMeta(ss, parts.meta); !ok {
			return false
		}
	case parts.meta != nil:
		if meta, toolUse, ok = fastMeta(parts.meta); !ok {
			return false
		}
	}
	var decision *trace.PolicyDecision
	if p.opts.Policy != nil {
		// Only an allowed call stays here: the SDK path answers the
		// others (policy.go).
		d := p.opts.Policy.Decide(route.PolicyCall(parts.args, ""))
		if d.Action != policy.Allow {
			return false
		}
		decision = traceDecision(d)
	}
	d := route.Downstream
	c := &fastCall{fc: fc, key: key, id: bytes.Clone(f.ID), tool: route.Exposed, policy: decision}
	if modern {
		c.rounds = &roundCall{asks: p.relay.asksFor(d), done: make(chan finished, 1), cancel: c.cancelLater, open: map[string]*ask{}}
		c.over = make(chan struct{})
	}
	fc.mu.Lock()
	if _, dup := fc.calls[key]; dup {
		fc.mu.Unlock()
		return false
	}
	fc.calls[key] = c
	fc.mu.Unlock()
	p.fastCalls.Add(1)

	args := parts.args
	if len(args) == 0 {
		args = []byte("{}")
	}
	c.rec = p.recordCall(route.Exposed, args, toolUse)
	c.live, c.end = p.relay.begin(context.Background(), d, ss, nil, c.rounds)
	toolName, _ := json.Marshal(route.Tool.Name)
	params := make([]byte, 0, len(meta)+len(toolName)+len(args)+32)
	params = append(params, '{')
	if meta != nil {
		params = append(append(append(params, `"_meta":`...), meta...), ',')
	}
	params = append(append(params, `"name":`...), toolName...)
	params = append(append(append(params, `,"arguments":`...), args...), '}')
	c.start = time.Now()
	raw := d.CallRaw(params, c.done)
	fc.mu.Lock()
	c.raw = raw
	fc.mu.Unlock()
	if modern {
		go c.await()
	}
	return true
}

// done ends a call with the downstream's answer, its error, its limit or
// its exit.
func (c *fastCall) done(r mcpx.RawResult) {
	ms := time.Since(c.start).Milliseconds()
	x := c.rec.extras(c.live) // what the downstream sent before its answer
	res, raw := settle(r.Res, r.Result, r.Err, false)
	c.finish(res, raw, ms, false, x)
	if c.rounds != nil {
		c.settled(finished{res: res, raw: raw}, nil)
		return
	}
	c.fc.respond(c.id, res, raw)
}

// cancel ends a call the agent cancelled, or left.
func (c *fastCall) cancel() {
	ms := time.Since(c.start).Milliseconds()
	x := c.rec.extras(c.live)
	res, raw := settle(nil, nil, context.Canceled, true)
	c.finish(res, raw, ms, true, x)
	if c.rounds != nil {
		c.settled(finished{res: res, raw: raw}, context.Canceled)
		return
	}
	c.fc.respond(c.id, res, raw)
}

// finish records the call's result and ends it, before the agent has the
// result (as on the SDK path: what the agent does next comes after it in
// the trace).
func (c *fastCall) finish(res *mcp.CallToolResult, raw json.RawMessage, ms int64, cancelled bool, x trace.ResultExtras) {
	x.Policy = c.policy
	c.fc.p.recordResult(c.rec, c.tool, res, raw, ms, cancelled, x)
	c.end()
	c.fc.mu.Lock()
	if c.fc.calls[c.key] == c {
		delete(c.fc.calls, c.key)
	}
	c.fc.mu.Unlock()
}

// respond writes the agent's response: the downstream's result as it
// sent it, else res encoded.
func (fc *fastConn) respond(id []byte, res *mcp.CallToolResult, raw json.RawMessage) {
	if raw == nil {
		var err error
		if raw, err = json.Marshal(res); err != nil {
			return
		}
	}
	fc.writeResult(id, raw)
}

// writeResult writes the JSON-RPC response line with result to the agent,
// under the agent's request id.
func (fc *fastConn) writeResult(id, result []byte) {
	line := make([]byte, 0, len(result)+len(id)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, result...)
	line = append(line, "}\n"...)
	fc.w.Write(line)
}

// cancelled handles the agent's notifications/cancelled for a call on
// the fast path: the downstream is told, and the agent gets the error
// result the SDK path gives a cancelled call. Another one is passed on.
func (fc *fastConn) cancelled(f *mcpx.Frame) bool {
	var id []byte
	mcpx.EachMember(f.Line, func(key, value []byte) bool {
		if mcpx.KeyIs(key, "params") {
			id = nil
			mcpx.EachMember(value, func(key, value []byte) bool {
				if mcpx.KeyIs(key, "requestId") {
					id = value
				}
				return true
			})
		}
		return true
	})
	key, ok := idKey(id)
	if !ok {
		return false
	}
	fc.mu.Lock()
	c := fc.calls[key]
	var raw *mcpx.RawCall
	if c != nil {
		raw = c.raw
	}
	if c != nil && c.rounds != nil {
		if c.round != roundOpen {
			raw = nil // answered already
		} else {
			c.round = roundCancelling
		}
	}
	fc.mu.Unlock()
	if c == nil {
		return false
	}
	if raw != nil && raw.Cancel() {
		c.cancel()
	}
	return true
}

// gone cancels the calls in flight when the agent's stream has ended, as
// the SDK cancels its handlers' calls then.
func (fc *fastConn) gone(error) {
	fc.mu.Lock()
	var calls []*fastCall
	for _, c := range fc.calls {
		if c.raw != nil && (c.rounds == nil || c.round == roundOpen) {
			if c.rounds != nil {
				c.round = roundCancelling
			}
			calls = append(calls, c)
		}
	}
	fc.mu.Unlock()
	for _, c := range calls {
		if c.raw.Cancel() {
			c.cancel()
		}
	}
}

// fastTool reports whether name is a downstream tool the server exposes.
func (p *Proxy) fastTool(name string) bool {
	m := p.fastTools.Load()
	return m != nil && (*m)[name]
}
