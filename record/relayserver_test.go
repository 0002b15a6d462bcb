package record_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relayServerArg, as the first argument of this test binary started with
// mcptest.ServeEnv set, makes it serve relayServer on stdio: a go-sdk
// server whose tools send what a server may send its client — sampling,
// elicitation and roots requests, progress, log messages, resource
// updates, a tool list change — and one that waits to be cancelled.
const relayServerArg = "-relay-server"

// relayServerCommand returns the --wrap command of the relay server.
func relayServerCommand() string { return fmt.Sprintf("'%s' %s", os.Args[0], relayServerArg) }

// serveRelayIfAsked serves the relay server when this process was started
// as one.
func serveRelayIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != relayServerArg {
		return
	}
	err := relayServer().Run(context.Background(), &mcp.StdioTransport{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

type promptIn struct {
	Prompt string `json:"prompt"`
}

type nameIn struct {
	Name string `json:"name"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func failed(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

func relayServer() *mcp.Server {
	subscribed := make(chan struct{})
	var subOnce sync.Once
	s := mcp.NewServer(&mcp.Implementation{Name: "relay", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			subOnce.Do(func() { close(subscribed) })
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var out []string
			for _, v := range []string{"alice", "albert", "bob"} {
				if req.Params.Ref.Name == "greet" && strings.HasPrefix(v, req.Params.Argument.Value) {
					out = append(out, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: out, Total: len(out)}}, nil
		},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask_model", Description: "asks the client's model"}, func(ctx context.Context, req *mcp.CallToolRequest, in promptIn) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
			MaxTokens: 50,
		})
		if err != nil {
			return failed(err), nil, nil
		}
		t, _ := res.Content.(*mcp.TextContent)
		if t == nil {
			return failed(fmt.Errorf("the model answered %T", res.Content)), nil, nil
		}
		return text("model " + res.Model + " said: " + t.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask_person", Description: "asks the client's user"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message: "What is your name?",
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}},
				"required":   []string{"name"},
			},
		})
		if err != nil {
			return failed(err), nil, nil
		}
		return text(fmt.Sprintf("action=%s name=%v", res.Action, res.Content["name"])), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "list_roots", Description: "lists the client's roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return failed(err), nil, nil
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return text("roots: " + strings.Join(uris, ",")), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "chatter", Description: "sends progress, a log message and a resource update"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "halfway"})
		}
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "relay", Data: "chatter log"})
		s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "relay://doc"})
		return text("chattered"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "adds a tool"}, func(ctx context.Context, req *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
		name := in.Name
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "a tool added while serving"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return text("I am " + name), nil, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: name + "_prompt"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt " + name}}}}, nil
		})
		return text("grown"), nil, nil
	})
	var mu sync.Mutex
	cancelled := make(chan struct{})
	var once sync.Once
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "waits until cancelled"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 0, Message: "blocking"})
		}
		<-ctx.Done()
		mu.Lock()
		once.Do(func() { close(cancelled) })
		mu.Unlock()
		return text("cancelled"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask_then_block", Description: "asks the client's model, then waits until cancelled"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		if _, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "and then?"}}},
			MaxTokens: 50,
		}); err != nil {
			return failed(err), nil, nil
		}
		<-ctx.Done()
		return text("cancelled"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "was_cancelled", Description: "says whether block saw its cancellation"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		select {
		case <-cancelled:
			return text("yes"), nil, nil
		case <-time.After(20 * time.Second):
			return text("no"), nil, nil
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "subscribed", Description: "says whether a client subscribed to relay://doc"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		select {
		case <-subscribed:
			return text("yes"), nil, nil
		case <-time.After(20 * time.Second):
			return text("no"), nil, nil
		}
	})
	s.AddResource(&mcp.Resource{URI: "relay://doc", Name: "doc"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "relay://doc", Text: "the doc"}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
	})
	return s
}
