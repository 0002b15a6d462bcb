package record

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
)

// The fast path for an agent on protocol revision 2026-07-28 (fast.go):
// the call is made as for an agent on 2025-11-25, and answered as the
// go-sdk's server and the proxy's SDK path (rounds.go) answer it.
//
// The go-sdk's server (v1.8.0, ServerSession.handle) reads a request with
// io.modelcontextprotocol/protocolVersion in its _meta as one of the new
// protocol: it checks the revision is one it speaks, that
// io.modelcontextprotocol/clientCapabilities is there and decodes (and
// io.modelcontextprotocol/clientInfo, if there), answering an error
// otherwise; it gives the handler the request's log level; and it adds
// "resultType" ("complete", or "input_required" for a round of input
// requests, callTool and handleMultiRoundTripResult) and its own
// Implementation under io.modelcontextprotocol/serverInfo in the
// result's _meta (annotateServerInfo) — on the proxy's side merged into
// the downstream's exact result (mcpx.RawCallResult). The fast path takes
// a call only when that _meta passes those checks as the SDK would pass
// it (modernCallMeta), and encodes its answer with the same types and
// functions (modernResult), so the bytes are the SDK path's.
//
// A request the downstream sends the agent during the call is what the
// SDK path turns into input requests: the call waits for the first such
// request (await, like forwardRounds' first round) and, if it comes
// before the result, answers the agent's request with the round's input
// requests and hands the call to the rounds machinery (handOver): the
// agent's next round goes the SDK path, which finds the call by its
// request state; the downstream's result, when it comes, is the call's
// finished result (rc.done), and a cancelled later round cancels the call
// downstream (cancelLater). A cancellation of the first round cancels the
// call downstream, records it cancelled, and answers with the error the
// SDK answers a cancelled handler with.

// roundState is where a fast call's first round stands, for an agent on
// 2026-07-28.
type roundState int

const (
	roundOpen       roundState = iota // waiting for the result or a request of the downstream's
	roundCancelling                   // the agent cancelled it: a request of the downstream's waits for another round
	roundHanded                       // answered with input requests: the call is the rounds machinery's
	roundAnswered                     // answered with the result or the cancellation
)

// clientCapsV2 is how the go-sdk decodes the client capabilities a request
// of the new protocol carries (its clientCapabilitiesV2).
type clientCapsV2 struct {
	mcp.ClientCapabilities
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// modernCallMeta checks the _meta of a call from an agent on 2026-07-28 and
// returns what goes downstream: ok only when the SDK would take it as a
// request of the session's revision (see above), with no log level (the
// SDK hands the handler that level in its context, which the fast path
// has not got), no progress token and no other key of the protocol's;
// and when the agent has not set a level with logging/setLevel either.
// The _meta sent on is the agent's without the protocol's keys, nil when
// nothing is left (the SDK path's forwardMeta, whose empty map the SDK's
// client omits).
func (p *Proxy) modernCallMeta(ss *mcp.ServerSession, raw []byte) (meta []byte, toolUse string, ok bool) {
	p.relay.mu.Lock()
	level := p.relay.agent[ss]
	p.relay.mu.Unlock()
	if level != "" {
		return nil, "", false
	}
	return p.checkModernMeta(ss.InitializeParams().ProtocolVersion, raw)
}

// modernMeta is modernCallMeta, remembering the last _meta it took: an
// agent sends the same one with call after call. It runs on the reading
// goroutine (Divert), as do all its uses of the cache.
func (fc *fastConn) modernMeta(ss *mcp.ServerSession, raw []byte) (meta []byte, toolUse string, ok bool) {
	version := ss.InitializeParams().ProtocolVersion
	if c := &fc.lastMeta; c.raw != nil && c.version == version && bytes.Equal(c.raw, raw) {
		fc.p.relay.mu.Lock()
		level := fc.p.relay.agent[ss]
		fc.p.relay.mu.Unlock()
		if level == "" {
			return c.meta, c.toolUse, true
		}
	}
	meta, toolUse, ok = fc.p.modernCallMeta(ss, raw)
	if ok {
		fc.lastMeta = metaCache{raw: bytes.Clone(raw), version: version, meta: meta, toolUse: toolUse}
	}
	return meta, toolUse, ok
}

// metaCache is the last _meta modernMeta took, and what it made of it.
type metaCache struct {
	raw     []byte
	version string
	meta    []byte
	toolUse string
}

// checkModernMeta is modernCallMeta for a session on revision version.
func (p *Proxy) checkModernMeta(version string, raw []byte) (meta []byte, toolUse string, ok bool) {
	if raw == nil {
		return nil, "", false // a request of the old protocol on the new one's session
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, "", false
	}
	var sent string
	if v := m[mcp.MetaKeyProtocolVersion]; len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &sent) != nil || sent != version {
		return nil, "", false
	}
	caps := m[mcp.MetaKeyClientCapabilities]
	if len(caps) == 0 || caps[0] != '{' || json.Unmarshal(caps, new(*clientCapsV2)) != nil {
		return nil, "", false
	}
	if info, present := m[mcp.MetaKeyClientInfo]; present && (len(info) == 0 || info[0] != '{' || json.Unmarshal(info, new(*mcp.Implementation)) != nil) {
		return nil, "", false
	}
	rest := map[string]json.RawMessage{}
	for k, v := range m {
		switch {
		case k == mcp.MetaKeyProtocolVersion, k == mcp.MetaKeyClientCapabilities, k == mcp.MetaKeyClientInfo:
			continue
		case k == "progressToken", strings.HasPrefix(k, "io.modelcontextprotocol/"):
			return nil, "", false
		}
		if toolUse == "" && (k == "toolUseId" || strings.HasSuffix(k, "/toolUseId")) && len(v) > 0 && v[0] == '"' {
			json.Unmarshal(v, &toolUse)
		}
		rest[k] = v
	}
	if len(rest) == 0 {
		return nil, toolUse, true
	}
	meta, err := json.Marshal(rest)
	return meta, toolUse, err == nil
}

// typedResult returns a result of the given resultType ("complete",
// "input_required"): the one member of a result the SDK sets that its
// type does not export.
func typedResult(rt string) *mcp.CallToolResult {
	var res mcp.CallToolResult
	json.Unmarshal([]byte(`{"resultType":"`+rt+`"}`), &res)
	res.Content = nil
	return &res
}

// modernResult encodes a result for an agent on 2026-07-28 as the SDK
// path does: the downstream's exact result (raw), or the proxy's own
// (raw nil), with the resultType and the serverInfo the SDK adds.
func (p *Proxy) modernResult(res *mcp.CallToolResult, raw json.RawMessage) ([]byte, error) {
	rt := "complete"
	if res.InputRequests != nil {
		rt = "input_required"
	}
	out := typedResult(rt)
	out.Meta = maps.Clone(res.Meta)
	if out.Meta == nil {
		out.Meta = mcp.Meta{}
	}
	if _, ok := out.Meta[mcp.MetaKeyServerInfo]; !ok {
		out.Meta[mcp.MetaKeyServerInfo] = p.impl
	}
	if raw != nil {
		return (&mcpx.RawCallResult{CallToolResult: out, Raw: raw}).MarshalJSON()
	}
	out.Content, out.StructuredContent, out.IsError = res.Content, res.StructuredContent, res.IsError
	out.InputRequests, out.RequestState = res.InputRequests, res.RequestState
	if out.Content == nil && rt == "complete" {
		out.Content = []mcp.Content{} // as callTool has it
	}
	return out.MarshalJSON()
}

// serverMeta is the _meta modernResult gives a downstream's result that
// has none: the proxy's serverInfo, encoded as the SDK path encodes it
// (found by encoding an empty result that way).
func (p *Proxy) serverMeta() []byte {
	p.serverMetaOnce.Do(func() {
		b, err := p.modernResult(&mcp.CallToolResult{}, json.RawMessage(`{}`))
		if err != nil {
			return
		}
		mcpx.EachMember(b, func(key, value []byte) bool {
			if string(key) == `"_meta"` {
				p.serverMetaJSON = bytes.Clone(value)
			}
			return true
		})
	})
	return p.serverMetaJSON
}

// plainMember is a top-level member of a result, by its name.
type plainMember struct {
	name  string
	value []byte
}

// modernPlain is modernResult for a downstream's result (raw) without
// decoding it, when its member names are unique and plain (printable
// ASCII that JSON writes as it is) and none is _meta or resultType: its
// members, the proxy's _meta and "resultType":"complete" in sorted
// order, each value compacted and HTML-escaped — what the SDK path's
// json.Marshal of the merged members writes. false for any other result.
func (p *Proxy) modernPlain(raw []byte) ([]byte, bool) {
	meta := p.serverMeta()
	if meta == nil {
		return nil, false
	}
	var buf [8]plainMember
	ms := buf[:0]
	size := 0
	if !mcpx.EachMember(raw, func(key, value []byte) bool {
		if !plainName(key) {
			return false
		}
		name := key[1 : len(key)-1]
		if string(name) == "_meta" || string(name) == "resultType" {
			return false
		}
		for _, m := range ms {
			if m.name == string(name) {
				return false
			}
		}
		ms = append(ms, plainMember{name: string(name), value: value})
		size += len(key) + len(value) + 2
		return true
	}) {
		return nil, false
	}
	ms = append(ms, plainMember{"_meta", meta}, plainMember{"resultType", []byte(`"complete"`)})
	slices.SortFunc(ms, func(a, b plainMember) int { return strings.Compare(a.name, b.name) })
	out := bytes.NewBuffer(make([]byte, 0, size+len(meta)+40))
	out.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteByte('"')
		out.WriteString(m.name)
		out.WriteString(`":`)
		start := out.Len()
		if json.Compact(out, m.value) != nil {
			return nil, false
		}
		if v := out.Bytes()[start:]; bytes.ContainsAny(v, "<>&\u2028\u2029") {
			escaped := bytes.NewBuffer(make([]byte, 0, len(v)+64))
			json.HTMLEscape(escaped, v)
			out.Truncate(start)
			out.Write(escaped.Bytes())
		}
	}
	out.WriteByte('}')
	return out.Bytes(), true
}

// plainName reports whether a member's name, with its quotes, is one
// JSON writes as it is: printable ASCII, no quote, backslash or HTML
// character.
func plainName(key []byte) bool {
	if len(key) < 2 {
		return false
	}
	for _, c := range key[1 : len(key)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// respondModern writes the agent's response to a call's round.
func (fc *fastConn) respondModern(id []byte, res *mcp.CallToolResult, raw json.RawMessage) {
	var b []byte
	var err error
	if raw != nil {
		if out, ok := fc.p.modernPlain(raw); ok {
			b = out
		}
	}
	if b == nil {
		b, err = fc.p.modernResult(res, raw)
	}
	if err != nil {
		fc.p.warnf("the result of a call could not be encoded: %v", err)
		return
	}
	fc.writeResult(id, b)
}

// respondCancelled writes the error the SDK answers a request with whose
// handler returned the context's error (jsonrpc2's toWireError).
func (fc *fastConn) respondCancelled(id []byte) {
	line := make([]byte, 0, len(id)+80)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"error":{"code":0,"message":"context canceled"}}`+"\n"...)
	fc.w.Write(line)
}

// settled ends the call's first round with how the call ended, or hands
// that to the rounds machinery when the first round was answered with
// input requests. cancelled says the agent cancelled the first round.
func (c *fastCall) settled(f finished, cancelled error) {
	fc := c.fc
	fc.mu.Lock()
	st := c.round
	if st != roundHanded {
		c.round = roundAnswered
	}
	fc.mu.Unlock()
	switch st {
	case roundHanded:
		if f.raw != nil {
			f.raw = bytes.Clone(f.raw) // valid only during the callback
		}
		c.rounds.done <- f
	case roundAnswered:
	default:
		close(c.over)
		if cancelled != nil {
			fc.respondCancelled(c.id)
			return
		}
		fc.respondModern(c.id, f.res, f.raw)
	}
}

// await waits for the first request of the downstream's for the agent
// while the call's first round is open.
func (c *fastCall) await() {
	select {
	case a := <-c.rounds.asks:
		c.handOver(a)
	case <-c.over:
	}
}

// handOver answers the call's first round with a's input request (and
// those of the others waiting), and leaves the call to the rounds
// machinery. A first round answered or cancelled meanwhile leaves a for
// another call's round.
func (c *fastCall) handOver(a *ask) {
	fc := c.fc
	fc.mu.Lock()
	if c.round != roundOpen {
		fc.mu.Unlock()
		select {
		case c.rounds.asks <- a:
		case <-a.gone:
		}
		return
	}
	c.round = roundHanded
	if fc.calls[c.key] == c {
		delete(fc.calls, c.key) // its id is answered: a cancellation of it is the SDK's to ignore
	}
	fc.mu.Unlock()
	fc.respondModern(c.id, fc.p.inputRound(c.rounds, a), nil)
}

// cancelLater cancels the call downstream when the agent cancels a later
// round (forwardRounds).
func (c *fastCall) cancelLater() {
	c.fc.mu.Lock()
	raw := c.raw
	c.fc.mu.Unlock()
	if raw != nil && raw.Cancel() {
		c.cancel()
	}
}
