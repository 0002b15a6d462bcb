package serve

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// declaredBy says, for each method of a server feature, whether the
// capabilities a server advertises declare it. A method not listed here
// (initialize, ping, the Skills extension's methods, the session-less
// protocol's own) is not gated by a capability.
var declaredBy = map[string]func(*mcp.ServerCapabilities) bool{
	"tools/list":               func(c *mcp.ServerCapabilities) bool { return c.Tools != nil },
	"tools/call":               func(c *mcp.ServerCapabilities) bool { return c.Tools != nil },
	"resources/list":           func(c *mcp.ServerCapabilities) bool { return c.Resources != nil },
	"resources/read":           func(c *mcp.ServerCapabilities) bool { return c.Resources != nil },
	"resources/templates/list": func(c *mcp.ServerCapabilities) bool { return c.Resources != nil },
	"resources/subscribe":      func(c *mcp.ServerCapabilities) bool { return c.Resources != nil && c.Resources.Subscribe },
	"resources/unsubscribe":    func(c *mcp.ServerCapabilities) bool { return c.Resources != nil && c.Resources.Subscribe },
	"prompts/list":             func(c *mcp.ServerCapabilities) bool { return c.Prompts != nil },
	"prompts/get":              func(c *mcp.ServerCapabilities) bool { return c.Prompts != nil },
	"completion/complete":      func(c *mcp.ServerCapabilities) bool { return c.Completions != nil },
	"logging/setLevel":         func(c *mcp.ServerCapabilities) bool { return c.Logging != nil },
}

// refuseUndeclared answers a method of a feature the server does not
// declare with "Method not found" (-32601), as the specification asks of
// a client that uses a capability the server did not advertise, instead
// of the SDK's empty answer (an empty prompts/list for a server with no
// prompts capability). What is declared and what is answered are then
// the same thing, read from the one serverCapabilities.
func refuseUndeclared(next mcp.MethodHandler) mcp.MethodHandler {
	caps := serverCapabilities()
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if declared, ok := declaredBy[method]; ok && !declared(caps) {
			// The SDK sends any -32601 as `method not found: "<method>"`.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
		}
		return next(ctx, method, req)
	}
}

// codedErrors is a transport whose connections never send a JSON-RPC
// error without a code. The SDK answers a request that comes before
// initialize with a plain Go error, which goes on the wire with code 0;
// over HTTP requireSession answers those requests first, and on stdio
// this gives them Invalid Request (-32600), keeping the message. Any
// other error without a code is sent as Internal error (-32603).
type codedErrors struct{ mcp.Transport }

func (t codedErrors) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return codedConn{c}, nil
}

type codedConn struct{ mcp.Connection }

func (c codedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		var coded *jsonrpc.Error
		if !errors.As(r.Error, &coded) || coded.Code == 0 {
			code := int64(jsonrpc.CodeInternalError)
			text := r.Error.Error()
			if strings.HasSuffix(text, "is invalid during session initialization") {
				code, text = jsonrpc.CodeInvalidRequest, text+": send initialize first"
			}
			copied := *r
			copied.Error = &jsonrpc.Error{Code: code, Message: text}
			msg = &copied
		}
	}
	return c.Connection.Write(ctx, msg)
}
