package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernServerArg, as the first argument of this test binary, makes it
// serve modernServer on stdio: a go-sdk server that speaks only protocol
// revision 2026-07-28. It refuses the initialize handshake (-32022,
// unsupported protocol version, listing the one it supports), so a client
// must open the session with server/discover; its tools ask the client
// for sampling and roots the 2026-07-28 way, as input requests of the call.
const modernServerArg = "-modern-server"

// modernServerCommand returns the --wrap command of the modern server.
func modernServerCommand() string { return fmt.Sprintf("'%s' %s", os.Args[0], modernServerArg) }

// serveModernIfAsked serves the modern server when this process was
// started as one.
func serveModernIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != modernServerArg {
		return
	}
	if err := modernServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func modernServer() *mcp.Server {
	subscribed := make(chan struct{})
	var subOnce sync.Once
	s := mcp.NewServer(&mcp.Implementation{Name: "modern", Version: "1"}, &mcp.ServerOptions{
		SupportedProtocolVersions: []string{"2026-07-28"},
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			subOnce.Do(func() { close(subscribed) })
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	// The go-sdk server answers initialize even when restricted (with
	// 2025-11-25, expecting the client to hang up); a server that truly
	// speaks only 2026-07-28 refuses it.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				data, _ := json.Marshal(map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-11-25"})
				return nil, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version: this server speaks 2026-07-28 only", Data: data}
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "greets someone"}, func(ctx context.Context, req *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "modern", Data: "greeting " + in.Name})
		return text("hello " + in.Name), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask_model", Description: "asks the client's model (an input request)"}, func(ctx context.Context, req *mcp.CallToolRequest, in promptIn) (*mcp.CallToolResult, any, error) {
		resp, ok := req.Params.InputResponses["m"]
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"m": &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
				MaxTokens: 50,
			}}, RequestState: "asked"}, nil, nil
		}
		var model string
		var content mcp.Content
		switch res := resp.(type) {
		case *mcp.CreateMessageResult:
			model, content = res.Model, res.Content
		case *mcp.CreateMessageWithToolsResult:
			if len(res.Content) == 1 {
				model, content = res.Model, res.Content[0]
			}
		}
		t, _ := content.(*mcp.TextContent)
		if t == nil {
			return failed(fmt.Errorf("the model answered %T", resp)), nil, nil
		}
		return text("model " + model + " said: " + t.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask_person", Description: "asks the client's user (an input request)"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		resp, ok := req.Params.InputResponses["p"]
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"p": &mcp.ElicitParams{
				Message: "What is your name?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}},
					"required":   []string{"name"},
				},
			}}, RequestState: "asked"}, nil, nil
		}
		res, _ := resp.(*mcp.ElicitResult)
		if res == nil {
			return failed(fmt.Errorf("the person answered %T", resp)), nil, nil
		}
		return text(fmt.Sprintf("action=%s name=%v", res.Action, res.Content["name"])), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "list_roots", Description: "lists the client's roots (an input request)"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		resp, ok := req.Params.InputResponses["r"]
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}, RequestState: "asked"}, nil, nil
		}
		res, _ := resp.(*mcp.ListRootsResult)
		if res == nil {
			return failed(fmt.Errorf("the roots answer is %T", resp)), nil, nil
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return text("roots: " + strings.Join(uris, ",")), nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "modern://doc", Name: "doc"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "modern://doc", Text: "the doc"}}}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "subscribed", Description: "says whether a client subscribed to modern://doc"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		select {
		case <-subscribed:
			return text("yes"), nil, nil
		case <-time.After(20 * time.Second):
			return text("no"), nil, nil
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "updates modern://doc"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "modern://doc"})
		return text("touched"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "adds a tool"}, func(ctx context.Context, req *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
		name := in.Name
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "a tool added while serving"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return text("I am " + name), nil, nil
		})
		return text("grown"), nil, nil
	})
	return s
}
