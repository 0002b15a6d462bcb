package mcpx

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes every result into its own types, which drop what they do
// not model (a tool's "execution" field, say) and turn numbers into
// float64. The recorder needs the downstream's exact bytes, so the client
// connection is wrapped in a tap: a request sent with a capture in its
// context has the raw JSON of its response's result kept in that capture.
// The tap only reads messages; it never changes one.

// capture receives the raw results of the requests sent with it.
type capture struct {
	mu  sync.Mutex
	raw []json.RawMessage
	ids []jsonrpc.ID // the calls sent with it, for release
}

func (c *capture) add(raw json.RawMessage) {
	c.mu.Lock()
	c.raw = append(c.raw, append(json.RawMessage(nil), raw...))
	c.mu.Unlock()
}

// results returns the raw results captured so far, in arrival order.
func (c *capture) results() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw
}

type captureKey struct{}

// withCapture returns ctx carrying a new capture.
func withCapture(ctx context.Context) (context.Context, *capture) {
	c := &capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

// tapTransport wraps a transport's connection in a tapConn.
type tapTransport struct {
	inner mcp.Transport
	conn  *tapConn                                    // set by Connect
	seen  func(method string, params json.RawMessage) // each notification read, in wire order; may be nil
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &tapConn{Connection: conn, pending: map[jsonrpc.ID]*capture{}, seen: t.seen}
	return t.conn, nil
}

// tapConn remembers which outgoing calls carry a capture and hands each
// one its response's raw result as the response is read.
type tapConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]*capture
	seen    func(method string, params json.RawMessage)
}

// newTap is a tap that is fed by hand (sent, received) instead of
// wrapping a connection: httpTap feeds it from a remote server's HTTP
// exchanges.
func newTap() *tapConn { return &tapConn{pending: map[jsonrpc.ID]*capture{}} }

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.sent(ctx, msg)
	return c.Connection.Write(ctx, msg)
}

// sent notes a call sent with a capture in ctx.
func (c *tapConn) sent(ctx context.Context, msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if cp, ok := ctx.Value(captureKey{}).(*capture); ok {
			c.mu.Lock()
			c.pending[req.ID] = cp
			c.mu.Unlock()
			cp.mu.Lock()
			cp.ids = append(cp.ids, req.ID)
			cp.mu.Unlock()
		}
	}
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.received(msg)
	}
	return msg, err
}

// received notes a notification (seen, in wire order) and hands a
// response to a noted call's capture.
func (c *tapConn) received(msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && c.seen != nil {
		c.seen(req.Method, req.Params)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cp, found := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if found && resp.Error == nil {
			cp.add(resp.Result)
		}
	}
}

// release forgets the calls sent with cp that never got a response (they
// were cancelled or the connection broke), so pending does not grow.
func (c *tapConn) release(cp *capture) {
	cp.mu.Lock()
	ids := cp.ids
	cp.mu.Unlock()
	c.mu.Lock()
	for _, id := range ids {
		if c.pending[id] == cp {
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
}
