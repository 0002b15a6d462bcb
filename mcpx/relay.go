package mcpx

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods a downstream may send its client besides responses: the
// requests a relay answers, and the notifications it passes on.
const (
	MethodCreateMessage       = "sampling/createMessage"
	MethodElicit              = "elicitation/create"
	MethodListRoots           = "roots/list"
	NotifyToolsChanged        = "notifications/tools/list_changed"
	NotifyPromptsChanged      = "notifications/prompts/list_changed"
	NotifyResourcesChanged    = "notifications/resources/list_changed"
	NotifyResourceUpdated     = "notifications/resources/updated"
	NotifyLog                 = "notifications/message"
	NotifyProgress            = "notifications/progress"
	NotifyElicitationComplete = "notifications/elicitation/complete"
	NotifyRootsChanged        = "notifications/roots/list_changed"
)

// relayNoAgentMsg is why a replay refuses sampling and elicitation.
const relayNoAgentMsg = "reelier run has no agent to answer %s from downstream %d (%s): a replay cannot sample a model or ask a person"

// Relay answers, on the downstreams' behalf, what they ask their client
// (sampling, elicitation, roots) and receives the notifications they
// send. The recording proxy implements it by passing everything to the
// agent; with no Relay (a replay) sampling and elicitation are not
// advertised and are refused with an error naming the downstream, and
// roots/list is answered with no roots.
type Relay interface {
	CreateMessage(ctx context.Context, d *Downstream, params *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
	Elicit(ctx context.Context, d *Downstream, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
	ListRoots(ctx context.Context, d *Downstream, params *mcp.ListRootsParams) (*mcp.ListRootsResult, error)
	// Notify receives a notification the downstream sent (method and
	// params), to pass on. A list_changed notification comes after the
	// router has re-read the downstream's lists and rebuilt its routing
	// table.
	Notify(ctx context.Context, d *Downstream, method string, params mcp.Params)
	// Seen is told of every notification as it is read from the
	// downstream, in the order of the wire: before the response to a
	// call the downstream sent it after, which Notify (called as the SDK
	// dispatches it) does not promise. It must not block.
	Seen(d *Downstream, method string, params json.RawMessage)
}

// relayState is a downstream's share of the relay: its client (for the
// roots notification), its router once built, and the relay.
type relayState struct {
	paused  int // relayed requests waiting for the agent (under Downstream.limitMu)
	relay   Relay
	client  *mcp.Client
	started chan struct{} // closed once the router holds the downstream
	mu      sync.Mutex
	router  *Router
	sentry  bool // whether the roots sentinel is in the client's list
}

// clientOptions returns the options of the downstream's MCP client: the
// relay's handlers, and the capabilities they make true.
func (d *Downstream) clientOptions(opts Options) *mcp.ClientOptions {
	d.rs = &relayState{relay: opts.Relay, started: make(chan struct{})}
	co := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			d.progressed(req.Params.ProgressToken)
			if opts.OnProgress != nil {
				opts.OnProgress(ctx, req.Params)
			}
			d.notify(ctx, NotifyProgress, req.Params)
		},
		ToolListChangedHandler: func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			d.listChanged(NotifyToolsChanged, req.Params)
		},
		PromptListChangedHandler: func(ctx context.Context, req *mcp.PromptListChangedRequest) {
			d.listChanged(NotifyPromptsChanged, req.Params)
		},
		ResourceListChangedHandler: func(ctx context.Context, req *mcp.ResourceListChangedRequest) {
			d.listChanged(NotifyResourcesChanged, req.Params)
		},
		ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			d.notify(ctx, NotifyResourceUpdated, req.Params)
		},
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) {
			d.notify(ctx, NotifyLog, req.Params)
		},
		ElicitationCompleteHandler: func(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			d.notify(ctx, NotifyElicitationComplete, req.Params)
		},
	}
	if r := opts.Relay; r != nil {
		co.Capabilities.Sampling = &mcp.SamplingCapabilities{}
		co.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
		co.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			defer d.pauseLimits()()
			return r.CreateMessage(ctx, d, req.Params)
		}
		co.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			defer d.pauseLimits()()
			return r.Elicit(ctx, d, req.Params)
		}
	}
	return co
}

// pauseLimits stops the downstream's running call limits while the agent
// answers one of its requests (a person may take a while to answer an
// elicitation); the returned func restarts them, each with its whole
// limit, once no relayed request is waiting any more.
func (d *Downstream) pauseLimits() func() {
	d.limitMu.Lock()
	d.rs.paused++
	for _, t := range d.limits {
		t.Stop()
	}
	d.limitMu.Unlock()
	return func() {
		d.limitMu.Lock()
		defer d.limitMu.Unlock()
		if d.rs.paused--; d.rs.paused == 0 {
			for _, t := range d.limits {
				t.Reset(d.callTimeout)
			}
		}
	}
}

// addRelayMiddleware puts the relay in front of the client's own answer
// to roots/list (the SDK has no handler for it), and, with no relay, the
// refusal of sampling and elicitation in front of the SDK's terse one.
func (d *Downstream) addRelayMiddleware(client *mcp.Client) {
	d.rs.client = client
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r := d.rs.relay
			switch method {
			case MethodListRoots:
				if r != nil {
					params, _ := req.GetParams().(*mcp.ListRootsParams)
					defer d.pauseLimits()()
					return r.ListRoots(ctx, d, params)
				}
				return &mcp.ListRootsResult{Roots: []*mcp.Root{}}, nil
			case MethodCreateMessage, MethodElicit:
				if r == nil {
					msg := fmt.Sprintf(relayNoAgentMsg, method, d.Index, d.Name)
					d.rs.mu.Lock()
					router := d.rs.router
					d.rs.mu.Unlock()
					if router != nil && router.warn != nil {
						fmt.Fprintf(router.warn, "[reelier] %s\n", msg)
					}
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: msg}
				}
			}
			return next(ctx, method, req)
		}
	})
}

// attach records the router that holds the downstream; list changes
// waiting for it are then handled.
func (d *Downstream) attach(r *Router) {
	d.rs.mu.Lock()
	d.rs.router = r
	d.rs.mu.Unlock()
	close(d.rs.started)
}

func (d *Downstream) seen(method string, params json.RawMessage) {
	if d.rs.relay != nil {
		d.rs.relay.Seen(d, method, params)
	}
}

func (d *Downstream) notify(ctx context.Context, method string, params mcp.Params) {
	if d.rs.relay != nil {
		d.rs.relay.Notify(ctx, d, method, params)
	}
}

// listChanged re-reads the downstream's tools, prompts and resources and
// rebuilds the routing table, then passes the notification on. It runs on
// its own goroutine: the SDK delivers notifications on the connection's
// reading goroutine, which the listing needs. A change announced while
// the downstream is still starting waits for its router.
func (d *Downstream) listChanged(method string, params mcp.Params) {
	go func() {
		select {
		case <-d.rs.started:
		case <-d.exited:
			return
		}
		d.rs.mu.Lock()
		r := d.rs.router
		d.rs.mu.Unlock()
		ctx := context.Background()
		if err := r.Refresh(ctx, d); err != nil {
			if r.warn != nil {
				fmt.Fprintf(r.warn, "[reelier] downstream %d (%s) said its %s changed, but re-reading them failed: %v\n", d.Index, d.Name, listNoun(method), err)
			}
			return
		}
		d.notify(ctx, method, params)
	}()
}

func listNoun(method string) string {
	switch method {
	case NotifyPromptsChanged:
		return "prompts"
	case NotifyResourcesChanged:
		return "resources"
	}
	return "tools"
}

// Refresh re-reads d's tools, prompts, resources and resource templates
// and rebuilds the routing table from every downstream's lists, under the
// collision rule (Routes, Route and Call see the old table or the new one,
// never a mix). A tool keeps its exposed name unless a name before it
// changed.
func (r *Router) Refresh(ctx context.Context, d *Downstream) error {
	if err := d.gone(); err != nil {
		return err
	}
	fresh := &Downstream{session: d.session, tap: d.tap}
	if err := fresh.list(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d.tools, d.rawTools, d.resources, d.templates, d.prompts = fresh.tools, fresh.rawTools, fresh.resources, fresh.templates, fresh.prompts
	n := newRouter(r.downstreams)
	r.routes, r.byName, r.prompts, r.resources, r.collisions = n.routes, n.byName, n.prompts, n.resources, n.collisions
	return nil
}

// NotifyRootsChanged tells the downstream that the client's roots
// changed (notifications/roots/list_changed); it then asks roots/list
// again, which the relay answers.
func (d *Downstream) NotifyRootsChanged() {
	// The SDK sends the notification only when its own list of roots
	// changes: a sentinel root, never served (the relay answers
	// roots/list), is added and removed in turn.
	if d.Modern() {
		// 2026-07-28 has no roots/list_changed, and the SDK's client
		// answers a roots input request from its own list, which must
		// stay empty (what a replay answers): nothing to send.
		return
	}
	d.rs.mu.Lock()
	c, in := d.rs.client, d.rs.sentry
	d.rs.sentry = !in
	d.rs.mu.Unlock()
	if c == nil {
		return
	}
	if in {
		c.RemoveRoots(rootsSentinel)
	} else {
		c.AddRoots(&mcp.Root{URI: rootsSentinel})
	}
}

const rootsSentinel = "reelier:roots-changed"

// Session returns the client session with the downstream, for the calls
// the routing table does not model (subscribe, completion, logging
// level).
func (d *Downstream) Session() *mcp.ClientSession { return d.session }

// Capabilities returns what the downstream declared at the handshake, or
// nil.
func (d *Downstream) Capabilities() *mcp.ServerCapabilities {
	if res := d.session.InitializeResult(); res != nil {
		return res.Capabilities
	}
	return nil
}
