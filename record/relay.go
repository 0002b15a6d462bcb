package record

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/trace"
)

// The faithful relay: what a downstream asks its client (sampling,
// elicitation, roots) goes to the agent and the agent's answer back; the
// notifications pass both ways; completions and resource subscriptions
// pass through; a downstream's list_changed makes the proxy re-read its
// lists and tell the agent. What a recording keeps of it is in SPEC.md
// §12: the requests relayed during a recorded call, and the notifications
// counted, on that call's result record.

// agentRelay is the proxy's mcpx.Relay.
type agentRelay struct {
	p *Proxy

	mu     sync.Mutex
	live   map[*mcpx.Downstream][]*liveCall // calls in flight, oldest first
	early  map[*mcpx.Downstream]bool        // asked for roots before the agent came
	levels map[*mcpx.Downstream]string      // the log level last passed on from a call's _meta
	agent  map[mcp.Session]string           // the log level each agent session set with logging/setLevel
	asks   map[*mcpx.Downstream]chan *ask   // requests for agents on 2026-07-28, by downstream
	began  func()                           // for tests: told of each call that begins
	ended  func()                           // for tests: told of each call that ends
	kept   func()                           // for tests: told of each relayed request answered
}

// asksFor returns d's channel of requests for agents that take input
// requests.
func (r *agentRelay) asksFor(d *mcpx.Downstream) chan *ask {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asks == nil {
		r.asks = map[*mcpx.Downstream]chan *ask{}
	}
	ch := r.asks[d]
	if ch == nil {
		ch = make(chan *ask)
		r.asks[d] = ch
	}
	return ch
}

// liveCall is a forwarded tool call in flight: the agent's session that
// made it, and what its downstream asked and notified meanwhile.
type liveCall struct {
	ctx     context.Context // the agent's request (its log level, on 2026-07-28)
	session *mcp.ServerSession
	token   any
	rounds  *roundCall // set for an agent that takes input requests

	mu       sync.Mutex
	closed   bool // its result is being written
	relay    []trace.Exchange
	notified map[string]int
}

// extras returns what the call kept, and closes it: what comes later is
// kept on another call in flight.
func (c *liveCall) extras() trace.ResultExtras {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return trace.ResultExtras{Relay: slices.Clone(c.relay), Notified: maps.Clone(c.notified)}
}

// count counts a notification on the call, unless it is closed.
func (c *liveCall) count(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if c.notified == nil {
		c.notified = map[string]int{}
	}
	c.notified[method]++
	return true
}

// keep adds an exchange to the call, unless it is closed.
func (c *liveCall) keep(e trace.Exchange) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.relay = append(c.relay, e)
	return true
}

// exchange keeps a relayed request and its answer on the oldest call in
// flight on d that is still open (the one it was asked for, unless that
// call has ended meanwhile).
func (r *agentRelay) exchange(d *mcpx.Downstream, method string, params any, res any, err error) {
	e := trace.Exchange{Method: method, OK: err == nil}
	e.Params, _ = json.Marshal(params)
	if err != nil {
		e.Error = err.Error()
	} else {
		e.Result, _ = json.Marshal(res)
	}
	for _, c := range r.calls(d) {
		if c.keep(e) {
			break
		}
	}
	r.mu.Lock()
	kept := r.kept
	r.mu.Unlock()
	if kept != nil {
		kept()
	}
}

// calls returns the calls in flight on d, oldest first.
func (r *agentRelay) calls(d *mcpx.Downstream) []*liveCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.live[d])
}

// begin registers a call to d made by ss; the returned func ends it.
func (r *agentRelay) begin(ctx context.Context, d *mcpx.Downstream, ss *mcp.ServerSession, token any, rounds *roundCall) (*liveCall, func()) {
	c := &liveCall{ctx: ctx, session: ss, token: token, rounds: rounds}
	r.mu.Lock()
	r.live[d] = append(r.live[d], c)
	began := r.began
	r.mu.Unlock()
	if began != nil {
		began()
	}
	return c, func() {
		r.mu.Lock()
		r.live[d] = slices.DeleteFunc(r.live[d], func(x *liveCall) bool { return x == c })
		ended := r.ended
		r.mu.Unlock()
		if ended != nil {
			ended()
		}
	}
}

// current returns the call in flight on d that a request or notification
// from d belongs to: the one whose progress token it names, else the
// oldest (over stdio a request does not say which call it serves). nil
// when no call is in flight.
func (r *agentRelay) current(d *mcpx.Downstream, token any) *liveCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.live[d]
	if token != nil {
		for _, c := range calls {
			if c.token != nil && fmt.Sprint(c.token) == fmt.Sprint(token) {
				return c
			}
		}
	}
	if len(calls) > 0 {
		return calls[0]
	}
	return nil
}

// session returns the agent session a request from d goes to: the one
// whose call d is serving, else the first connected one (nil if none).
func (r *agentRelay) session(c *liveCall) *mcp.ServerSession {
	if c != nil && c.session != nil {
		return c.session
	}
	if r.p.server == nil {
		return nil
	}
	for ss := range r.p.server.Sessions() {
		return ss
	}
	return nil
}

// refuse is the JSON-RPC error a downstream gets for a request the agent
// cannot answer.
func (r *agentRelay) refuse(d *mcpx.Downstream, method, why string) error {
	r.p.warnf("%s from downstream %d (%s) was refused: %s", method, d.Index, d.Name, why)
	return refuse(d, method, why)
}

// refuse returns the error: "Method not found", as the MCP specification
// has it for a client without roots (the go-sdk shows only the code's own
// text to its server; the proxy's stderr says why).
func refuse(d *mcpx.Downstream, method, why string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("reelier mcp cannot relay %s from downstream %d (%s): %s", method, d.Index, d.Name, why)}
}

// agentCaps returns the capabilities the agent declared, or a refusal.
func agentCaps(ss *mcp.ServerSession, d *mcpx.Downstream, method string) (*mcp.ClientCapabilities, error) {
	if ss == nil {
		return nil, refuse(d, method, "no agent is connected")
	}
	params := ss.InitializeParams()
	if params == nil || params.Capabilities == nil {
		return nil, refuse(d, method, "the agent has not initialized its session")
	}
	return params.Capabilities, nil
}

// request relays one request of d to the agent: refused, naming why,
// when the agent did not declare what it needs (check says what is
// missing, or ""); sent as a request of its own to an agent on a revision
// that has them (legacy), else handed to the agent as an input request of
// the tool call d is serving. The exchange is kept on that call.
func (r *agentRelay) request(ctx context.Context, d *mcpx.Downstream, method string, params mcp.InputRequest, check func(*mcp.ClientCapabilities) string, legacy func(*mcp.ServerSession) (any, error)) (any, error) {
	c := r.current(d, nil)
	res, err := func() (any, error) {
		ss := r.session(c)
		caps, err := agentCaps(ss, d, method)
		if err != nil {
			r.p.warnf("%s from downstream %d (%s) was refused: %v", method, d.Index, d.Name, err)
			return nil, err
		}
		if why := check(caps); why != "" {
			return nil, r.refuse(d, method, why)
		}
		if roundTrips(ss) {
			if c == nil || c.rounds == nil {
				return nil, r.refuse(d, method, "the agent speaks protocol "+ss.InitializeParams().ProtocolVersion+", where a server may ask only while it serves a tool call, and none is in flight")
			}
			return c.rounds.ask(ctx, params)
		}
		return legacy(ss)
	}()
	r.exchange(d, method, params, res, err)
	return res, err
}

func (r *agentRelay) CreateMessage(ctx context.Context, d *mcpx.Downstream, params *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	res, err := r.request(ctx, d, mcpx.MethodCreateMessage, params, func(caps *mcp.ClientCapabilities) string {
		switch {
		case caps.Sampling == nil:
			return "the agent did not declare the sampling capability"
		case len(params.Tools) > 0 && caps.Sampling.Tools == nil:
			return "the request offers tools and the agent did not declare sampling.tools"
		}
		return ""
	}, func(ss *mcp.ServerSession) (any, error) { return ss.CreateMessageWithTools(ctx, params) })
	if err != nil {
		return nil, err
	}
	out, ok := res.(*mcp.CreateMessageWithToolsResult)
	if !ok {
		return nil, fmt.Errorf("the agent answered %s with %T", mcpx.MethodCreateMessage, res)
	}
	return out, nil
}

func (r *agentRelay) Elicit(ctx context.Context, d *mcpx.Downstream, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	res, err := r.request(ctx, d, mcpx.MethodElicit, params, func(caps *mcp.ClientCapabilities) string {
		if caps.Elicitation == nil {
			return "the agent did not declare the elicitation capability"
		}
		return ""
	}, func(ss *mcp.ServerSession) (any, error) { return ss.Elicit(ctx, params) })
	if err != nil {
		return nil, err
	}
	out, ok := res.(*mcp.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("the agent answered %s with %T", mcpx.MethodElicit, res)
	}
	return out, nil
}

func (r *agentRelay) ListRoots(ctx context.Context, d *mcpx.Downstream, params *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	if params == nil {
		params = &mcp.ListRootsParams{}
	}
	if ss := r.session(r.current(d, nil)); ss == nil || ss.InitializeParams() == nil {
		// The downstream asks while it starts, before any agent is
		// there: no roots yet; it is told when the agent has come.
		r.mu.Lock()
		r.early[d] = true
		r.mu.Unlock()
		return &mcp.ListRootsResult{Roots: []*mcp.Root{}}, nil
	}
	res, err := r.request(ctx, d, mcpx.MethodListRoots, params, func(caps *mcp.ClientCapabilities) string {
		if caps.RootsV2 == nil {
			return "the agent did not declare the roots capability"
		}
		return ""
	}, func(ss *mcp.ServerSession) (any, error) { return ss.ListRoots(ctx, params) })
	if err != nil {
		return nil, err
	}
	out, ok := res.(*mcp.ListRootsResult)
	if !ok {
		return nil, fmt.Errorf("the agent answered %s with %T", mcpx.MethodListRoots, res)
	}
	return out, nil
}

func (r *agentRelay) Notify(ctx context.Context, d *mcpx.Downstream, method string, params mcp.Params) {
	var token any
	if pp, ok := params.(*mcp.ProgressNotificationParams); ok {
		token = pp.ProgressToken
	}
	c := r.current(d, token)
	p := r.p
	if method == mcpx.NotifyToolsChanged || method == mcpx.NotifyPromptsChanged || method == mcpx.NotifyResourcesChanged {
		// On mcpx's own goroutine, never the connection's: waiting for
		// the server to be built is safe.
		<-p.built
		p.sync()
		return
	}
	select {
	case <-p.built:
	default:
		return // no agent can have asked for it yet
	}
	switch method {
	case mcpx.NotifyResourceUpdated:
		if up, ok := params.(*mcp.ResourceUpdatedNotificationParams); ok {
			if err := p.server.ResourceUpdated(ctx, up); err != nil {
				p.warnf("resources/updated from downstream %d (%s) was not passed on: %v", d.Index, d.Name, err)
			}
		}
	case mcpx.NotifyElicitationComplete:
		if ep, ok := params.(*mcp.ElicitationCompleteParams); ok {
			if ss := r.session(c); ss != nil {
				ss.NotifyElicitationComplete(ctx, ep)
			}
		}
	}
	// Progress reaches the agent through Options.OnProgress.
}

// Seen counts a notification on the call in flight it belongs to.
func (r *agentRelay) Seen(d *mcpx.Downstream, method string, params json.RawMessage) {
	var token any
	if method == mcpx.NotifyProgress {
		var pp struct {
			ProgressToken any `json:"progressToken"`
		}
		if json.Unmarshal(params, &pp) == nil {
			token = pp.ProgressToken
		}
	}
	c := r.current(d, token)
	if c != nil && !c.count(method) && token == nil {
		// That call has ended meanwhile: the next one still open.
		for _, o := range r.calls(d) {
			if o.count(method) {
				break
			}
		}
	}
	if method == mcpx.NotifyLog {
		r.log(c, params)
	}
}

// log passes a downstream's log message on: within the call it belongs to
// when one is in flight (so the level an agent on 2026-07-28 sent with
// that call applies), else to every agent session at the level it set.
// It runs in wire order (Seen), while the call is still in flight.
func (r *agentRelay) log(c *liveCall, params json.RawMessage) {
	select {
	case <-r.p.built:
	default:
		return // no agent can have asked for it yet
	}
	var lp mcp.LoggingMessageParams
	if json.Unmarshal(params, &lp) != nil {
		return
	}
	if c != nil && c.session != nil {
		c.session.Log(c.ctx, &lp)
		return
	}
	for ss := range r.p.server.Sessions() {
		ss.Log(context.Background(), &lp)
	}
}

// agentInitialized tells the downstreams that asked for roots before the
// agent was there that the roots changed, when the agent has roots: they
// ask again and get the agent's.
func (r *agentRelay) agentInitialized(ss *mcp.ServerSession) {
	params := ss.InitializeParams()
	if params == nil || params.Capabilities == nil || params.Capabilities.RootsV2 == nil {
		return
	}
	r.mu.Lock()
	early := slices.Collect(maps.Keys(r.early))
	clear(r.early)
	r.mu.Unlock()
	for _, d := range early {
		d.NotifyRootsChanged()
	}
}

// serverOptions adds to the proxy's server options what the relay needs
// from the agent's side: its roots changes, and the subscriptions and
// completions of the downstreams that offer them.
func (p *Proxy) relayServerOptions(o *mcp.ServerOptions) {
	o.InitializedHandler = func(ctx context.Context, req *mcp.InitializedRequest) {
		p.relay.agentInitialized(req.Session)
	}
	o.RootsListChangedHandler = func(ctx context.Context, req *mcp.RootsListChangedRequest) {
		for _, d := range p.router.Downstreams() {
			d.NotifyRootsChanged()
		}
	}
	var subscribe, complete bool
	for _, d := range p.router.Downstreams() {
		caps := d.Capabilities()
		if caps == nil {
			continue
		}
		subscribe = subscribe || caps.Resources != nil && caps.Resources.Subscribe
		complete = complete || caps.Completions != nil
	}
	if subscribe {
		o.SubscribeHandler = func(ctx context.Context, req *mcp.SubscribeRequest) error {
			return p.subscription(ctx, req.Params.URI, func(d *mcpx.Downstream) error {
				return d.Session().Subscribe(ctx, &mcp.SubscribeParams{URI: req.Params.URI})
			})
		}
		o.UnsubscribeHandler = func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
			return p.subscription(ctx, req.Params.URI, func(d *mcpx.Downstream) error {
				return d.Session().Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: req.Params.URI})
			})
		}
	}
	if complete {
		o.CompletionHandler = p.complete
	}
}

// subscription passes a subscribe or unsubscribe on to the downstream
// that lists the resource, else to the first downstream that takes
// subscriptions and accepts it.
func (p *Proxy) subscription(ctx context.Context, uri string, do func(*mcpx.Downstream) error) error {
	for _, rr := range p.router.Resources() {
		if rr.Resource != nil && rr.Resource.URI == uri {
			return do(rr.Downstream)
		}
	}
	var first error
	for _, d := range p.router.Downstreams() {
		if caps := d.Capabilities(); caps == nil || caps.Resources == nil || !caps.Resources.Subscribe {
			continue
		}
		err := do(d)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("no downstream takes subscriptions to %q", uri)
	}
	return first
}

// complete passes completion/complete on to the downstream that serves
// the prompt or resource referred to, under its own name for the prompt.
func (p *Proxy) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	params := *req.Params
	ref := *params.Ref
	params.Ref = &ref
	params.Meta = forwardMeta(params.Meta)
	var d *mcpx.Downstream
	switch ref.Type {
	case "ref/prompt":
		for _, pr := range p.router.Prompts() {
			if pr.Exposed == ref.Name {
				d, ref.Name = pr.Downstream, pr.Prompt.Name
				break
			}
		}
	case "ref/resource":
		for _, rr := range p.router.Resources() {
			if rr.Template != nil && rr.Template.URITemplate == ref.URI || rr.Resource != nil && rr.Resource.URI == ref.URI {
				d = rr.Downstream
				break
			}
		}
	}
	if d == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no downstream serves the %s %q", ref.Type, ref.Name+ref.URI)}
	}
	if caps := d.Capabilities(); caps == nil || caps.Completions == nil {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	return d.Session().Complete(ctx, &params)
}

// levelFromMeta passes the log level an agent on 2026-07-28 sends with a
// call (in _meta) on to the call's downstream as logging/setLevel, which
// the downstream, on 2025-11-25, needs before it logs at all; once per
// change of level.
func (p *Proxy) levelFromMeta(ctx context.Context, d *mcpx.Downstream, meta mcp.Meta) {
	level, ok := meta[mcp.MetaKeyLogLevel].(string)
	if !ok || level == "" {
		return
	}
	if caps := d.Capabilities(); caps == nil || caps.Logging == nil || d.Modern() {
		return // a downstream on 2026-07-28 gets it with the call (modernMeta)
	}
	p.relay.mu.Lock()
	if p.relay.levels == nil {
		p.relay.levels = map[*mcpx.Downstream]string{}
	}
	same := p.relay.levels[d] == level
	p.relay.levels[d] = level
	p.relay.mu.Unlock()
	if same {
		return
	}
	if err := d.Session().SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		p.warnf("the log level %q was not passed on to downstream %d (%s): %v", level, d.Index, d.Name, err)
	}
}

// modernMeta adds to a call's forwarded _meta what a downstream on
// 2026-07-28 takes with each request instead of a session's state: the
// log level, from the agent's call (an agent on 2026-07-28) or from its
// logging/setLevel (an agent on 2025-11-25).
func (p *Proxy) modernMeta(d *mcpx.Downstream, req *mcp.CallToolRequest, meta mcp.Meta) mcp.Meta {
	if !d.Modern() {
		return meta
	}
	level, _ := req.Params.Meta[mcp.MetaKeyLogLevel].(string)
	if level == "" {
		p.relay.mu.Lock()
		level = p.relay.agent[req.Session]
		p.relay.mu.Unlock()
	}
	if level == "" {
		return meta
	}
	if meta == nil {
		meta = mcp.Meta{}
	}
	meta[mcp.MetaKeyLogLevel] = level
	return meta
}

// setLevel passes logging/setLevel on to every downstream that logs.
func (p *Proxy) setLevel(ctx context.Context, req mcp.Request) {
	params, ok := req.GetParams().(*mcp.SetLoggingLevelParams)
	if !ok {
		return
	}
	p.relay.mu.Lock()
	if p.relay.agent == nil {
		p.relay.agent = map[mcp.Session]string{}
	}
	p.relay.agent[req.GetSession()] = string(params.Level)
	p.relay.mu.Unlock()
	for _, d := range p.router.Downstreams() {
		if caps := d.Capabilities(); caps == nil || caps.Logging == nil || d.Modern() {
			continue // a downstream on 2026-07-28 has no logging/setLevel: see modernMeta
		}
		if err := d.Session().SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: params.Level}); err != nil {
			p.warnf("logging/setLevel was not passed on to downstream %d (%s): %v", d.Index, d.Name, err)
		}
	}
}

// sync brings the server's tools, prompts and resources in line with the
// routing table after a downstream's list changed; the SDK then tells the
// agent's sessions that their lists changed.
func (p *Proxy) sync() {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	raw, hidden := map[string]json.RawMessage{}, map[string]bool{}
	tools := map[string]bool{}
	for _, route := range p.router.Routes() {
		if err := p.addToolTo(route, raw); err != nil {
			hidden[route.Exposed] = true
			p.warnf("tool %q from downstream %d (%s) is not exposed: %v", route.Exposed, route.Downstream.Index, route.Downstream.Name, err)
			continue
		}
		tools[route.Exposed] = true
	}
	var gone []string
	for name := range p.exposed.tools {
		if !tools[name] {
			gone = append(gone, name)
		}
	}
	p.server.RemoveTools(gone...)
	prompts := map[string]bool{}
	for _, pr := range p.router.Prompts() {
		if err := p.addPrompt(pr); err == nil {
			prompts[pr.Exposed] = true
		}
	}
	gone = gone[:0]
	for name := range p.exposed.prompts {
		if !prompts[name] {
			gone = append(gone, name)
		}
	}
	p.server.RemovePrompts(gone...)
	resources, templates := map[string]bool{}, map[string]bool{}
	for _, rr := range p.router.Resources() {
		if p.addResource(rr) != nil {
			continue
		}
		if rr.Template != nil {
			templates[rr.Template.URITemplate] = true
		} else {
			resources[rr.Resource.URI] = true
		}
	}
	var goneR, goneT []string
	for uri := range p.exposed.resources {
		if !resources[uri] {
			goneR = append(goneR, uri)
		}
	}
	for uri := range p.exposed.templates {
		if !templates[uri] {
			goneT = append(goneT, uri)
		}
	}
	p.server.RemoveResources(goneR...)
	p.server.RemoveResourceTemplates(goneT...)
	p.exposed = exposedSet{tools: tools, prompts: prompts, resources: resources, templates: templates}
	fast := maps.Clone(tools)
	p.fastTools.Store(&fast)
	p.mu.Lock()
	p.rawDefs, p.hidden = raw, hidden
	p.mu.Unlock()
}

// exposedSet is what the proxy's server offers from the downstreams.
type exposedSet struct {
	tools, prompts, resources, templates map[string]bool
}

// noteExposed fills the exposed set from the routing table as build left
// it.
func (p *Proxy) noteExposed() {
	e := exposedSet{tools: map[string]bool{}, prompts: map[string]bool{}, resources: map[string]bool{}, templates: map[string]bool{}}
	for _, route := range p.router.Routes() {
		if !p.hidden[route.Exposed] {
			e.tools[route.Exposed] = true
		}
	}
	for _, pr := range p.router.Prompts() {
		e.prompts[pr.Exposed] = true
	}
	for _, rr := range p.router.Resources() {
		if rr.Template != nil {
			e.templates[rr.Template.URITemplate] = true
		} else {
			e.resources[rr.Resource.URI] = true
		}
	}
	p.exposed = e
}

// addToolTo exposes one downstream tool under its exposed name (as
// addTool does) and keeps its exact definition in raw.
func (p *Proxy) addToolTo(route *mcpx.Route, raw map[string]json.RawMessage) error {
	schema, ok := route.Tool.InputSchema.(map[string]any)
	if !ok || schema["type"] != "object" {
		return fmt.Errorf(`its input schema is not of type "object"`)
	}
	t := *route.Tool
	t.Name = route.Exposed
	if err := mcpx.Guard(func() { p.server.AddTool(&t, p.forward(route)) }); err != nil {
		return err
	}
	if route.Raw != nil {
		raw[route.Exposed] = route.Raw
	}
	return nil
}

// toolDefs returns the exact tool definitions, by exposed name.
func (p *Proxy) toolDefs() map[string]json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rawDefs
}
