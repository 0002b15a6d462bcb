package mcpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// The control tools of the recording proxy. Their names are reserved
// before any downstream's in the routing table, for recording and replay
// alike, so a downstream tool with one of these names is prefixed on both.
const (
	StartRecording = "reelier_start_recording"
	Note           = "reelier_note"
	StopRecording  = "reelier_stop_recording"
)

// ControlTools lists the reserved control tool names.
var ControlTools = []string{StartRecording, Note, StopRecording}

// DefaultStartTimeout bounds the start of one downstream: spawning it, the
// MCP handshake and the listing of its tools.
const DefaultStartTimeout = 60 * time.Second

// Options configure Start.
type Options struct {
	// Stderr receives the downstreams' own stderr, each line prefixed
	// with "[name] " (Names, else ServerLabel of the command), and the
	// collision warnings; nil discards both.
	Stderr io.Writer
	// Names are the downstreams' names for that prefix, by --wrap index;
	// a missing or empty one is the command's ServerLabel.
	Names []string
	// Quiet discards the downstreams' own stderr; the collision warnings
	// still go to Stderr.
	Quiet bool
	// Redactor blanks secrets in the downstreams' stderr lines before they
	// are printed (a server may log a token it was given); nil means the
	// one the environment configures (trace.RedactorFromEnv).
	Redactor *redact.Redactor
	// Version is reported to downstreams as the client's version.
	Version string
	// StartTimeout bounds each downstream's start; DefaultStartTimeout if 0.
	StartTimeout time.Duration
	// StartTimeoutFlag is the command's flag that sets StartTimeout
	// ("--handshake-timeout"): when set, a start that takes longer than
	// WaitNotice prints a "still waiting" line to Stderr naming it, and a
	// start that times out says which flag bounds it.
	StartTimeoutFlag string
	// NoticeAfter is the interval of the "still waiting" lines; WaitNotice
	// if 0.
	NoticeAfter time.Duration
	// OnProgress, if set, receives the progress notifications downstreams
	// send for calls that carried a progress token.
	OnProgress func(context.Context, *mcp.ProgressNotificationParams)
	// CallTimeout bounds each call to a downstream (a tool call, a prompt,
	// a resource read): one not answered in time fails with a
	// *CallTimeoutError, is cancelled on the downstream, and the
	// downstream stays in use. A call that carries a progress token gets
	// a fresh limit with each progress notification the downstream sends
	// for it. 0 means no limit.
	CallTimeout time.Duration
	// Relay answers what downstreams ask their client (sampling,
	// elicitation, roots) and receives their notifications; nil for a
	// replay (see Relay).
	Relay Relay
	// MaxMessage bounds the size of a message read from a downstream, in
	// bytes; DefaultMaxMessage if 0. A response over it fails its call
	// with an error that says so; the downstream stays in use.
	MaxMessage int
	// Headers are the request headers of the downstreams given by URL,
	// by --wrap index, values as written ($VAR expanded at start; see
	// Header). A command's entry must be empty.
	Headers [][]Header
}

func (o Options) headers(k int) []Header {
	if k < len(o.Headers) {
		return o.Headers[k]
	}
	return nil
}

// WaitNotice is how long a start or a call runs before a "still waiting"
// line says so (see Options.StartTimeoutFlag).
const WaitNotice = 5 * time.Second

// waitNotice prints, every interval until stop is called, that the start
// of name is still going on and what bounds it. It does nothing unless
// StartTimeoutFlag is set.
func (o Options) waitNotice(name string) (stop func()) {
	if o.StartTimeoutFlag == "" || o.Stderr == nil {
		return func() {}
	}
	return StillWaiting(o.Stderr, o.NoticeAfter, func(waited time.Duration) string {
		return fmt.Sprintf("[reelier] still waiting for %s to finish the MCP handshake (%s so far; %s %v bounds it)",
			termtext.Line(name), waited, o.StartTimeoutFlag, o.startTimeout())
	})
}

// StillWaiting writes line(time waited, in whole seconds) to w every
// interval (WaitNotice if 0) until stop is called; stop may be called more
// than once. It is the one "still waiting" notice of a server's start
// (mcpx) and of a slow call (replay/suite).
func StillWaiting(w io.Writer, every time.Duration, line func(waited time.Duration) string) (stop func()) {
	if every <= 0 {
		every = WaitNotice
	}
	t0 := time.Now()
	tick := time.NewTicker(every)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				fmt.Fprintln(w, line(now.Sub(t0).Round(time.Second)))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { tick.Stop(); close(done) }) }
}

// boundedBy says which flag bounds a start that timed out, if known.
func (o Options) boundedBy() string {
	if o.StartTimeoutFlag == "" {
		return ""
	}
	return "; " + o.StartTimeoutFlag + " sets the limit"
}

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return DefaultStartTimeout
}

func (o Options) maxMessage() int {
	if o.MaxMessage > 0 {
		return o.MaxMessage
	}
	return DefaultMaxMessage
}

// Route is one exposed tool.
type Route struct {
	// Exposed is the name the tool is exposed, recorded and replayed under.
	Exposed string
	// Tool is the downstream's definition; its Name is the downstream's own.
	Tool *mcp.Tool
	// Raw is the downstream's definition exactly as it sent it, with the
	// name changed to Exposed when that differs; nil if it was not seen.
	Raw json.RawMessage
	// Downstream serves the tool.
	Downstream *Downstream

	policyOnce sync.Once   // makes policyView (policycall.go)
	policyView *policyView // what PolicyCall reads once
}

// Annotations returns the annotation hints the downstream declared for the
// tool (only those it sent), and whether it declared any.
func (r *Route) Annotations() (trace.Annotations, bool) {
	var def struct {
		Annotations *trace.Annotations `json:"annotations"`
	}
	if r.Raw != nil {
		if json.Unmarshal(r.Raw, &def) != nil || def.Annotations == nil {
			return trace.Annotations{}, false
		}
	} else if a := r.Tool.Annotations; a != nil {
		def.Annotations = &trace.Annotations{DestructiveHint: a.DestructiveHint}
		if a.ReadOnlyHint {
			def.Annotations.ReadOnlyHint = &a.ReadOnlyHint
		}
		if a.IdempotentHint {
			def.Annotations.IdempotentHint = &a.IdempotentHint
		}
	} else {
		return trace.Annotations{}, false
	}
	a := *def.Annotations
	return a, a.ReadOnlyHint != nil || a.DestructiveHint != nil || a.IdempotentHint != nil
}

// PromptRoute is one exposed prompt; prompts are named like tools, with
// the same collision rule.
type PromptRoute struct {
	// Exposed is the prompt's name on the proxy.
	Exposed string
	// Prompt is the downstream's definition, under its own name.
	Prompt *mcp.Prompt
	// Downstream serves the prompt.
	Downstream *Downstream
}

// ResourceRoute is one exposed resource or resource template (the first
// downstream to list a URI serves it).
type ResourceRoute struct {
	// Resource is set for a resource, Template for a resource template.
	Resource *mcp.Resource
	Template *mcp.ResourceTemplate
	// Downstream serves it.
	Downstream *Downstream
}

// Router is the set of running downstreams and the routing table that maps
// exposed names to them.
type Router struct {
	mu          sync.RWMutex // guards the table against Refresh
	warn        io.Writer    // the proxy's warnings, or nil
	downstreams []*Downstream
	routes      []*Route
	byName      map[string]*Route
	prompts     []*PromptRoute
	resources   []*ResourceRoute
	collisions  []Collision
}

// StartServers starts every server, in parallel, and builds the routing
// table from their tools in their order. Collision warnings go to
// opts.Stderr. If any downstream fails to start, the others are stopped
// and the error names the failed command. Each server's name and headers
// are its spec's (opts.Names and opts.Headers are Start's).
func StartServers(ctx context.Context, servers []ServerSpec, opts Options) (*Router, error) {
	if len(servers) == 0 {
		return nil, errors.New("no --wrap command to start")
	}
	ds := make([]*Downstream, len(servers))
	errs := make([]error, len(servers))
	stderr, warn := stderrLines(servers, opts)
	var wg sync.WaitGroup
	for k, sv := range servers {
		wg.Go(func() { ds[k], errs[k] = startDownstream(ctx, k, sv, stderr[k], opts) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, d := range ds {
			if d != nil {
				d.close()
			}
		}
		return nil, err
	}
	r := newRouter(ds)
	r.warn = warn
	for _, d := range ds {
		d.attach(r)
	}
	if warn != nil {
		for _, d := range ds {
			for _, n := range d.notes {
				fmt.Fprintf(warn, "[reelier] downstream %d (%s): %s\n", d.Index, d.Name, n)
			}
		}
		for _, c := range r.collisions {
			fmt.Fprintln(warn, c)
		}
	}
	return r, nil
}

// newRouter builds the routing table of started downstreams.
func newRouter(ds []*Downstream) *Router {
	r := &Router{downstreams: ds, byName: map[string]*Route{}}
	names := make([][]string, len(ds))
	labels := make([]string, len(ds))
	for k, d := range ds {
		labels[k] = d.Name
		for _, t := range d.tools {
			names[k] = append(names[k], t.Name)
		}
	}
	exposed, collisions := ExposedNames(names, labels, ControlTools)
	r.collisions = collisions
	for k, d := range ds {
		for j, t := range d.tools {
			route := &Route{Exposed: exposed[k][j], Tool: t, Raw: renamed(d.rawTools[t.Name], exposed[k][j], t.Name), Downstream: d}
			r.routes = append(r.routes, route)
			r.byName[route.Exposed] = route
		}
	}
	r.routePrompts()
	r.routeResources()
	return r
}

// renamed returns raw with its "name" member set to name, or raw itself
// when the name is unchanged.
func renamed(raw json.RawMessage, name, orig string) json.RawMessage {
	if raw == nil || name == orig {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	m["name"], _ = json.Marshal(name)
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

func (r *Router) routePrompts() {
	names := make([][]string, len(r.downstreams))
	for k, d := range r.downstreams {
		for _, p := range d.prompts {
			names[k] = append(names[k], p.Name)
		}
	}
	exposed, _ := ExposedNames(names, nil, nil)
	for k, d := range r.downstreams {
		for j, p := range d.prompts {
			r.prompts = append(r.prompts, &PromptRoute{Exposed: exposed[k][j], Prompt: p, Downstream: d})
		}
	}
}

func (r *Router) routeResources() {
	seen := map[string]bool{}
	for _, d := range r.downstreams {
		for _, res := range d.resources {
			if !seen[res.URI] {
				seen[res.URI] = true
				r.resources = append(r.resources, &ResourceRoute{Resource: res, Downstream: d})
			}
		}
		for _, t := range d.templates {
			if !seen[t.URITemplate] {
				seen[t.URITemplate] = true
				r.resources = append(r.resources, &ResourceRoute{Template: t, Downstream: d})
			}
		}
	}
}

// Names returns the downstreams' names (their --wrap commands), in order.
func (r *Router) Names() []string {
	names := make([]string, len(r.downstreams))
	for k, d := range r.downstreams {
		names[k] = d.Name
	}
	return names
}

// Downstreams returns the running downstreams, in --wrap order.
func (r *Router) Downstreams() []*Downstream { return r.downstreams }

// Routes returns every exposed tool, downstream by downstream in --wrap
// order, each in its server's order.
func (r *Router) Routes() []*Route {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.routes
}

// Route returns the tool exposed under name.
func (r *Router) Route(name string) (*Route, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	route, ok := r.byName[name]
	return route, ok
}

// Collisions returns the prefixed tools, in the order they were met.
func (r *Router) Collisions() []Collision {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.collisions
}

// Prompts returns every exposed prompt.
func (r *Router) Prompts() []*PromptRoute {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.prompts
}

// Resources returns every exposed resource and resource template.
func (r *Router) Resources() []*ResourceRoute {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.resources
}

// Instructions joins the downstreams' own instructions, one paragraph each.
func (r *Router) Instructions() string {
	var parts []string
	for _, d := range r.downstreams {
		if s := strings.TrimSpace(d.Instructions()); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Call calls the tool exposed as name with the JSON object args; meta is
// sent as the request's _meta. It returns the downstream's result and the
// result's exact JSON (nil if unseen). An error means there is no result:
// the name is unknown, or the call failed (a *DownstreamError naming the
// downstream — it crashed, refused the request, did not answer within
// Options.CallTimeout, or answered with a message over
// Options.MaxMessage).
func (r *Router) Call(ctx context.Context, name string, args json.RawMessage, meta mcp.Meta) (*mcp.CallToolResult, json.RawMessage, error) {
	route, ok := r.Route(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown tool %q", name)
	}
	d := route.Downstream
	if err := d.gone(); err != nil {
		return nil, nil, d.fault(ctx, err)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	lctx, stop := d.limit(ctx, meta["progressToken"])
	defer stop()
	cctx, cp := withCapture(lctx)
	defer d.tap.release(cp)
	res, err := d.session.CallTool(cctx, &mcp.CallToolParams{Meta: meta, Name: route.Tool.Name, Arguments: args})
	if err != nil {
		if cctx.Err() != nil {
			// The SDK sends notifications/cancelled for it; close waits
			// for that before it ends the session.
			d.cancelled.Add(1)
		}
		return nil, nil, d.fault(lctx, err)
	}
	// On 2026-07-28 a call that needed input has one result a round
	// (the SDK's client fulfils the input requests and calls again): the
	// last one is the call's.
	var raw json.RawMessage
	if rs := cp.results(); len(rs) > 0 {
		raw = rs[len(rs)-1]
	}
	return res, raw, nil
}

// Close stops every downstream: stdin closed, then a grace period, then
// killed.
func (r *Router) Close() {
	var wg sync.WaitGroup
	for _, d := range r.downstreams {
		wg.Go(d.close)
	}
	wg.Wait()
}
