package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// Options configure the proxy.
type Options struct {
	// TraceDir is where recordings go; trace.DefaultDir if empty.
	TraceDir string
	// Redactor blanks secrets in what is recorded; nil blanks nothing.
	Redactor *redact.Redactor
	// Now is the trace clock; time.Now if nil.
	Now func() time.Time
	// Stderr receives the downstreams' stderr, each line prefixed with
	// "[name] " (see mcpx.Options), and the proxy's warnings; nil
	// discards them.
	Stderr io.Writer
	// Quiet discards the downstreams' stderr; the proxy's warnings still
	// go to Stderr.
	Quiet bool
	// Version is the proxy's version, as reported to both sides.
	Version string
	// StartTimeout bounds each downstream's start; see mcpx.Options.
	StartTimeout time.Duration
	// CallTimeout bounds each forwarded call (see mcpx.Options): a call
	// the downstream does not answer in time is answered with an isError
	// result naming the downstream and the limit, and recorded as failed.
	// DefaultCallTimeout if 0; no limit if negative.
	CallTimeout time.Duration
	// MaxMessage bounds the size of a message, in bytes, read from a
	// downstream or from the agent (see Transport);
	// mcpx.DefaultMaxMessage if 0.
	MaxMessage int
	// NoFastPath sends every tool call through the MCP SDK's sessions,
	// turning off the fast path that forwards a stdio agent's usual
	// tools/call to a local downstream as bytes (fast.go). What is
	// recorded is the same either way; it is an escape hatch, and how
	// the tests compare the two.
	NoFastPath bool
	// Policy, when set, is put every tools/call for a downstream tool
	// before it is forwarded (policy.go); nil forwards every call.
	Policy *policy.Policy
}

// DefaultCallTimeout is how long a forwarded call may take unless
// Options.CallTimeout says otherwise.
const DefaultCallTimeout = 60 * time.Second

func (o Options) callTimeout() time.Duration {
	switch {
	case o.CallTimeout < 0:
		return 0
	case o.CallTimeout == 0:
		return DefaultCallTimeout
	}
	return o.CallTimeout
}

func (o Options) maxMessage() int {
	if o.MaxMessage > 0 {
		return o.MaxMessage
	}
	return mcpx.DefaultMaxMessage
}

// Proxy is the recording MCP proxy: one MCP server that re-exposes every
// downstream tool, prompt and resource, plus the control tools.
type Proxy struct {
	opts     Options
	router   *mcpx.Router
	server   *mcp.Server
	progress progressRelay
	rawDefs  map[string]json.RawMessage // exact tool definitions by exposed name
	hidden   map[string]bool            // exposed names of tools the agent is not offered

	relay   *agentRelay   // see relay.go
	rounds  pendingRounds // see rounds.go
	built   chan struct{} // closed once server is built
	syncMu  sync.Mutex    // serialises sync
	exposed exposedSet    // what server offers from the downstreams, under syncMu

	mu  sync.Mutex
	rec *recording // nil when not recording

	fastTools atomic.Pointer[map[string]bool] // the downstream tools the server exposes, for the fast path
	fastMu    sync.Mutex
	fastConns []*fastConn         // the agent connections' fast paths (Transport)
	impl      *mcp.Implementation // the server's, as results on 2026-07-28 name it (fast.go)

	serverMetaOnce sync.Once
	serverMetaJSON []byte       // see serverMeta
	fastCalls      atomic.Int64 // how many calls took the fast path
}

// recording is the state of one recording in progress.
type recording struct {
	w        *trace.Writer
	inflight sync.WaitGroup // recorded calls still waiting for their result
}

// Start is StartServers for --wrap values given as text (commands or
// URLs without headers; see mcpx.ParseServer).
func Start(ctx context.Context, wrap []string, opts Options) (*Proxy, error) {
	servers := make([]mcpx.ServerSpec, len(wrap))
	for k, w := range wrap {
		servers[k] = mcpx.ParseServer(w)
	}
	return StartServers(ctx, servers, opts)
}

// StartServers starts the downstreams and builds the proxy's server. A
// downstream that fails to start fails the whole start (the others are
// stopped), with an error naming it. A remote server's headers are sent
// with its requests; the trace keeps them as mcpx.SkillHeader writes
// them, never their values.
func StartServers(ctx context.Context, servers []mcpx.ServerSpec, opts Options) (*Proxy, error) {
	p := &Proxy{opts: opts, progress: progressRelay{sessions: map[any]*mcp.ServerSession{}}, built: make(chan struct{})}
	p.relay = &agentRelay{p: p, live: map[*mcpx.Downstream][]*liveCall{}, early: map[*mcpx.Downstream]bool{}}
	router, err := mcpx.StartServers(ctx, servers, mcpx.Options{
		Relay:        p.relay,
		Stderr:       opts.Stderr,
		Quiet:        opts.Quiet,
		Version:      opts.Version,
		StartTimeout: opts.StartTimeout,
		OnProgress:   p.progress.forward,
		CallTimeout:  opts.callTimeout(),
		MaxMessage:   opts.maxMessage(),
		Redactor:     opts.Redactor,
	})
	if err != nil {
		return nil, err
	}
	p.router = router
	p.build()
	p.noteExposed()
	close(p.built)
	return p, nil
}

// Serve serves the proxy on t until the client leaves or ctx ends.
func (p *Proxy) Serve(ctx context.Context, t mcp.Transport) error {
	err := p.server.Run(ctx, t)
	// The calls still in flight on the fast path end as the SDK ends its
	// own when the session does: cancelled.
	p.fastMu.Lock()
	conns := p.fastConns
	p.fastMu.Unlock()
	for _, fc := range conns {
		if fc.t == t {
			fc.gone(nil)
		}
	}
	return err
}

// Close ends a recording still in progress (writing what it holds) and
// stops the downstreams. It returns the recording's write error, if any.
func (p *Proxy) Close() error {
	_, _, err := p.stop()
	p.router.Close()
	return err
}

// build creates the server with the control tools and every downstream
// tool, prompt and resource.
func (p *Proxy) build() {
	so := &mcp.ServerOptions{
		Instructions: p.instructions(),
		HasTools:     true,
	}
	p.relayServerOptions(so)
	p.impl = &mcp.Implementation{Name: "reelier", Title: "Reelier recording proxy", Version: p.opts.Version}
	p.server = mcp.NewServer(p.impl, so)
	p.server.AddReceivingMiddleware(p.passthrough)
	p.addControlTools()
	p.rawDefs = map[string]json.RawMessage{}
	p.hidden = map[string]bool{}
	fast := map[string]bool{}
	for _, route := range p.router.Routes() {
		if err := p.addTool(route); err != nil {
			p.hidden[route.Exposed] = true
			p.warnf("tool %q from downstream %d (%s) is not exposed: %v", route.Exposed, route.Downstream.Index, route.Downstream.Name, err)
			continue
		}
		fast[route.Exposed] = true
	}
	p.fastTools.Store(&fast)
	for _, pr := range p.router.Prompts() {
		if err := p.addPrompt(pr); err != nil {
			p.warnf("prompt %q from downstream %d (%s) is not exposed: %v", pr.Exposed, pr.Downstream.Index, pr.Downstream.Name, err)
		}
	}
	for _, rr := range p.router.Resources() {
		if err := p.addResource(rr); err != nil {
			p.warnf("a resource of downstream %d (%s) is not exposed: %v", rr.Downstream.Index, rr.Downstream.Name, err)
		}
	}
}

func (p *Proxy) instructions() string {
	const own = "Reelier records what you do with these tools. To record a workflow, call " +
		mcpx.StartRecording + " {name}, call " + mcpx.Note + " {text} before each step to say what it is for, " +
		"do the work, then call " + mcpx.StopRecording + ". Every other tool is passed through unchanged."
	if down := p.router.Instructions(); down != "" {
		return down + "\n\n" + own
	}
	return own
}

// addTool exposes one downstream tool under its exposed name, with the
// downstream's description, schemas and annotations.
func (p *Proxy) addTool(route *mcpx.Route) error { return p.addToolTo(route, p.rawDefs) }

func (p *Proxy) addPrompt(pr *mcpx.PromptRoute) error {
	prompt := *pr.Prompt
	prompt.Name = pr.Exposed
	orig, d := pr.Prompt.Name, pr.Downstream
	return mcpx.Guard(func() {
		p.server.AddPrompt(&prompt, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return d.GetPrompt(ctx, &mcp.GetPromptParams{Meta: forwardMeta(req.Params.Meta), Name: orig, Arguments: req.Params.Arguments})
		})
	})
}

func (p *Proxy) addResource(rr *mcpx.ResourceRoute) error {
	d := rr.Downstream
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return d.ReadResource(ctx, &mcp.ReadResourceParams{Meta: forwardMeta(req.Params.Meta), URI: req.Params.URI})
	}
	if rr.Template != nil {
		return mcpx.Guard(func() { p.server.AddResourceTemplate(rr.Template, read) })
	}
	return mcpx.Guard(func() { p.server.AddResource(rr.Resource, read) })
}

func (p *Proxy) warnf(format string, args ...any) {
	if p.opts.Stderr != nil {
		fmt.Fprintf(p.opts.Stderr, "[reelier] "+format+"\n", args...)
	}
}

// forwardMeta returns the _meta to send downstream: the client's, less
// the protocol's own per-request keys, which describe the client's
// connection to the proxy, not the proxy's to the downstream.
func forwardMeta(m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	out := maps.Clone(m)
	for k := range out {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			delete(out, k)
		}
	}
	return out
}

// toolUseID returns the agent's id for a call from its _meta: a string
// under a key whose last segment is "toolUseId" (Claude Code sends
// "claudecode/toolUseId").
func toolUseID(m mcp.Meta) string {
	for k, v := range m {
		if k == "toolUseId" || strings.HasSuffix(k, "/toolUseId") {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	return ""
}

// progressRelay sends the progress notifications of downstream calls back
// to the client session that asked for them with its progress token.
type progressRelay struct {
	mu       sync.Mutex
	sessions map[any]*mcp.ServerSession
}

// progressGrace is how long a finished call's progress token stays routed.
// The SDK may hand the proxy a downstream's progress notification after
// the call's result even though the downstream sent it first; within the
// grace it still reaches the agent instead of being dropped.
const progressGrace = 2 * time.Second

// watch routes token's notifications to ss until progressGrace after the
// returned func is called. Tokens that are not a string or a number are
// ignored.
func (r *progressRelay) watch(token any, ss *mcp.ServerSession) func() {
	switch token.(type) {
	case string, float64, int64, json.Number:
	default:
		return func() {}
	}
	r.mu.Lock()
	r.sessions[token] = ss
	r.mu.Unlock()
	return func() {
		time.AfterFunc(progressGrace, func() {
			r.mu.Lock()
			if r.sessions[token] == ss {
				delete(r.sessions, token)
			}
			r.mu.Unlock()
		})
	}
}

func (r *progressRelay) forward(ctx context.Context, params *mcp.ProgressNotificationParams) {
	switch params.ProgressToken.(type) {
	case string, float64, int64, json.Number:
	default:
		return
	}
	r.mu.Lock()
	ss := r.sessions[params.ProgressToken]
	r.mu.Unlock()
	if ss != nil {
		ss.NotifyProgress(ctx, params)
	}
}
