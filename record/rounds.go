package record

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
)

// Protocol revision 2026-07-28 has no server-initiated requests: a server
// that needs the client to sample, elicit or list roots while it serves a
// tool call answers the call with input requests and an opaque request
// state, and the client calls again with its answers and that state (a
// multi round-trip request). For an agent on that revision the proxy does
// this on the downstream's behalf: the downstream call runs on, detached
// from the agent's first request; each request the downstream sends its
// client becomes an input request of the agent's call, and the agent's
// answer, arriving with its next call, goes back to the downstream. The
// last round returns the downstream's result. The call is recorded once,
// as one call and one result.

// roundsRevision is the first protocol revision without server-initiated
// requests.
const roundsRevision = "2026-07-28"

// roundTrips reports whether the agent's session takes input requests
// instead of requests.
func roundTrips(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	params := ss.InitializeParams()
	return params != nil && params.ProtocolVersion >= roundsRevision
}

// roundCall is a forwarded call that may take several rounds.
type roundCall struct {
	// asks are the requests of the call's downstream for the agent. A
	// request does not say which call it serves, so the channel is the
	// downstream's, shared by its calls: whichever call's round is
	// waiting hands the request to the agent.
	asks   chan *ask
	done   chan finished // the downstream's answer to the call
	cancel context.CancelFunc

	mu   sync.Mutex
	open map[string]*ask // asks sent to the agent, by input request id
	next int
}

type finished struct {
	res *mcp.CallToolResult
	raw json.RawMessage
}

// ask is one request of the downstream waiting for the agent's answer.
type ask struct {
	req   mcp.InputRequest
	reply chan answer
	gone  <-chan struct{} // closed when the downstream's request has ended
}

type answer struct {
	res mcp.InputResponse
	err error
}

// ask hands req to the agent with the call's next round and waits for the
// agent's answer.
func (rc *roundCall) ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	a := &ask{req: req, reply: make(chan answer, 1), gone: ctx.Done()}
	select {
	case rc.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case ans := <-a.reply:
		return ans.res, ans.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pendingRounds are the calls waiting for an agent's next round, by
// request state.
type pendingRounds struct {
	mu    sync.Mutex
	calls map[string]*roundCall
}

func (pr *pendingRounds) put(rc *roundCall) string {
	b := make([]byte, 16)
	rand.Read(b)
	state := "reelier-" + hex.EncodeToString(b)
	pr.mu.Lock()
	if pr.calls == nil {
		pr.calls = map[string]*roundCall{}
	}
	pr.calls[state] = rc
	pr.mu.Unlock()
	return state
}

// roundWait bounds how long the proxy waits for an agent to come back with
// the answers of a round, unless the call limit is longer.
const roundWait = 5 * time.Minute

// expire fails the requests of a round the agent does not come back to
// (it gave up on the call), so the server's call does not wait forever:
// the call limit is paused while the agent answers.
func (p *Proxy) expire(state string, rc *roundCall) {
	wait := max(p.opts.callTimeout(), roundWait)
	time.AfterFunc(wait, func() {
		if p.rounds.take(state) != rc {
			return // answered
		}
		rc.mu.Lock()
		for id, a := range rc.open {
			a.reply <- answer{err: fmt.Errorf("the agent did not come back with an answer to input request %q within %v", id, wait)}
		}
		clear(rc.open)
		rc.mu.Unlock()
	})
}

func (pr *pendingRounds) take(state string) *roundCall {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	rc := pr.calls[state]
	delete(pr.calls, state)
	return rc
}

// forwardRounds serves one round of a call from an agent that takes input
// requests.
func (p *Proxy) forwardRounds(ctx context.Context, route *mcpx.Route, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var rc *roundCall
	if state := req.Params.RequestState; state != "" {
		if rc = p.rounds.take(state); rc == nil {
			return errorResult(fmt.Sprintf("reelier: the request state %q names no call waiting for input (it was answered already, or the call ended)", state)), nil
		}
		rc.mu.Lock()
		for id, a := range rc.open {
			if res, ok := req.Params.InputResponses[id]; ok {
				a.reply <- answer{res: res}
			} else {
				a.reply <- answer{err: fmt.Errorf("the agent sent no answer to input request %q", id)}
			}
		}
		clear(rc.open)
		rc.mu.Unlock()
	} else {
		dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		rc = &roundCall{asks: p.relay.asksFor(route.Downstream), done: make(chan finished, 1), cancel: cancel, open: map[string]*ask{}}
		token := req.Params.GetProgressToken()
		stopWatch := func() {}
		if token != nil {
			stopWatch = p.progress.watch(token, req.Session)
		}
		live, done := p.relay.begin(dctx, route.Downstream, req.Session, token, rc)
		go func() {
			defer cancel()
			defer stopWatch()
			defer done()
			res, raw := p.callDownstream(dctx, route, req, live)
			// A state of rc still pending holds requests of other
			// calls: it stays until the agent comes back or expire.
			rc.done <- finished{res: res, raw: raw}
		}()
	}
	finish := func(f finished) (*mcp.CallToolResult, error) {
		if slot, ok := ctx.Value(rawKey{}).(*rawSlot); ok {
			slot.raw = f.raw
		}
		return f.res, nil
	}
	// The call's own result first: a call that has its result does not
	// take another call's request.
	select {
	case f := <-rc.done:
		return finish(f)
	default:
	}
	select {
	case f := <-rc.done:
		return finish(f)
	case a := <-rc.asks:
		return p.inputRound(rc, a), nil
	case <-ctx.Done():
		// The agent cancelled this round: the call is cancelled
		// downstream, and recorded as such.
		rc.cancel()
		return nil, ctx.Err()
	}
}

// inputRound hands a, and every other request of the downstream waiting
// (fewer rounds), to the agent as the input requests of a round of rc's
// call, and returns that round's result.
func (p *Proxy) inputRound(rc *roundCall, a *ask) *mcp.CallToolResult {
	asks := []*ask{a}
more:
	for {
		select {
		case a := <-rc.asks:
			asks = append(asks, a)
		default:
			break more
		}
	}
	reqs := mcp.InputRequestMap{}
	rc.mu.Lock()
	for _, a := range asks {
		rc.next++
		id := fmt.Sprintf("r%d", rc.next)
		rc.open[id] = a
		reqs[id] = a.req
	}
	rc.mu.Unlock()
	state := p.rounds.put(rc)
	p.expire(state, rc)
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}
}
