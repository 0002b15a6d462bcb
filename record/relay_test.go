package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/record"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// The relay tests run real processes: the reelier binary as `reelier mcp`,
// a go-sdk client as the agent, and the relay server (relayserver_test.go)
// or server-everything from npm as the downstream.

// relayAgent is a go-sdk agent connected to a `reelier mcp` process, with
// what it was sent besides responses.
type relayAgent struct {
	*proxyProcess
	logs     chan string
	progress chan string
	changed  chan struct{}
	prompts  chan struct{}
	updated  chan string
}

// agentRoot is the one root the agent declares.
const agentRoot = "file:///agent/root"

// startRelayAgent starts `reelier mcp --wrap …` and connects an agent to it
// on protocol revision version. A capable agent declares sampling,
// elicitation and roots and answers them; another declares none.
func startRelayAgent(t *testing.T, version string, capable bool, wrap ...string) *relayAgent {
	t.Helper()
	return startRelayAgentArgs(t, version, capable, nil, wrap...)
}

// slowPrompt makes the capable agent take slowAnswer to answer sampling,
// as a person answering might.
const (
	slowPrompt = "take your time"
	slowAnswer = 1500 * time.Millisecond
)

// startRelayAgentArgs is startRelayAgent with more arguments for reelier
// mcp.
func startRelayAgentArgs(t *testing.T, version string, capable bool, extra []string, wrap ...string) *relayAgent {
	t.Helper()
	a := &relayAgent{proxyProcess: &proxyProcess{dir: t.TempDir()},
		logs: make(chan string, 64), progress: make(chan string, 64), changed: make(chan struct{}, 64), prompts: make(chan struct{}, 64), updated: make(chan string, 64)}
	p := a.proxyProcess
	var err error
	if p.stderr, err = os.Create(filepath.Join(t.TempDir(), "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stderr.Close() })
	args := append([]string{"mcp", "--trace-dir", p.dir}, extra...)
	for _, w := range wrap {
		args = append(args, "--wrap", w)
	}
	p.cmd = exec.Command(reelierBin(t), args...)
	p.cmd.Stderr = p.stderr
	send := func(ch chan string, s string) {
		select {
		case ch <- s:
		default:
		}
	}
	opts := &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(req.Params.Data)
			send(a.logs, string(b))
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			b, _ := json.Marshal(req.Params.ProgressToken)
			send(a.progress, string(b)+" "+req.Params.Message)
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case a.changed <- struct{}{}:
			default:
			}
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			select {
			case a.prompts <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			send(a.updated, req.Params.URI)
		},
	}
	if capable {
		opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			var last string
			if n := len(req.Params.Messages); n > 0 {
				if tc, ok := req.Params.Messages[n-1].Content.(*mcp.TextContent); ok {
					last = tc.Text
				}
			}
			if last == slowPrompt {
				time.Sleep(slowAnswer) // an answer that takes longer than the call limit
			}
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "echo: " + last}}, nil
		}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}
	} else {
		opts.Capabilities = &mcp.ClientCapabilities{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "relay-agent", Version: "1"}, opts)
	if capable {
		client.AddRoots(&mcp.Root{URI: agentRoot, Name: "agent"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p.session, err = client.Connect(ctx, &mcp.CommandTransport{Command: p.cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v\nstderr:\n%s", err, p.errText(t))
	}
	t.Cleanup(func() { p.session.Close() })
	if got := p.session.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s; want %s", got, version)
	}
	return a
}

// call calls a tool and returns its text; an error result's text starts
// with "ERROR: ".
func (a *relayAgent) call(t *testing.T, name string, args any, meta mcp.Meta) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("calling %s: %v\nstderr:\n%s", name, err, a.errText(t))
	}
	if res.IsError {
		return "ERROR: " + resultText(res)
	}
	return resultText(res)
}

// await waits for a value on ch that satisfies ok.
func await[T any](t *testing.T, what string, ch chan T, ok func(T) bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return
			}
		case <-timeout:
			t.Fatalf("no %s reached the agent", what)
		}
	}
}

// relayRevisions are the protocol revisions the go-sdk speaks that the
// relay is held to on the agent's side.
var relayRevisions = []string{"2025-11-25", "2026-07-28"}

// TestRelayGoAgent: every relay path through the reelier binary, for an
// agent on each revision: the downstream's sampling, elicitation and roots
// requests answered by the agent; progress, log messages (after
// logging/setLevel, which passes through) and resource updates (after a
// subscription, which passes through) reaching the agent; a completion
// passed through; a tool added downstream re-read, announced and callable;
// a call the agent cancels cancelled downstream. Then the recording holds
// the exchanges, the notification counts and the cancellation.
func TestRelayGoAgent(t *testing.T) {
	for _, version := range relayRevisions {
		t.Run(version, func(t *testing.T) {
			a := startRelayAgent(t, version, true, relayServerCommand())
			ctx := context.Background()
			a.call(t, "reelier_start_recording", map[string]any{"name": "relay"}, nil)

			t.Run("sampling", func(t *testing.T) {
				if got := a.call(t, "ask_model", map[string]any{"prompt": "hello"}, nil); got != "model test-model said: echo: hello" {
					t.Errorf("ask_model → %q", got)
				}
			})
			t.Run("elicitation", func(t *testing.T) {
				if got := a.call(t, "ask_person", map[string]any{}, nil); got != "action=accept name=Ada" {
					t.Errorf("ask_person → %q", got)
				}
			})
			t.Run("roots", func(t *testing.T) {
				if got := a.call(t, "list_roots", map[string]any{}, nil); got != "roots: "+agentRoot {
					t.Errorf("list_roots → %q", got)
				}
			})
			t.Run("notifications", func(t *testing.T) {
				// Revision 2026-07-28 has no logging/setLevel: the go-sdk
				// client sends the level with each request instead.
				var meta mcp.Meta = mcp.Meta{"progressToken": "chat"}
				if version < "2026-07-28" {
					if err := a.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
						t.Fatal(err)
					}
				} else {
					meta[mcp.MetaKeyLogLevel] = "info"
				}
				if err := a.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "relay://doc"}); err != nil {
					t.Fatal(err)
				}
				// On 2026-07-28 the go-sdk client's Subscribe returns
				// before the server has subscribed: wait until the
				// subscription reached the downstream.
				if got := a.call(t, "subscribed", map[string]any{}, nil); got != "yes" {
					t.Fatalf("the subscription did not reach the downstream: %q", got)
				}
				if got := a.call(t, "chatter", map[string]any{}, meta); got != "chattered" {
					t.Errorf("chatter → %q", got)
				}
				await(t, "progress notification", a.progress, func(s string) bool { return s == `"chat" halfway` })
				await(t, "log message", a.logs, func(s string) bool { return s == `"chatter log"` })
				await(t, "resource update", a.updated, func(s string) bool { return s == "relay://doc" })
			})
			t.Run("completion", func(t *testing.T) {
				res, err := a.session.Complete(ctx, &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
					Argument: mcp.CompleteParamsArgument{Name: "who", Value: "al"},
				})
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(res.Completion.Values, ","); got != "alice,albert" {
					t.Errorf("completion → %q", got)
				}
			})
			t.Run("list_changed", func(t *testing.T) {
				if got := a.call(t, "grow", map[string]any{"name": "fresh"}, nil); got != "grown" {
					t.Fatalf("grow → %q", got)
				}
				await(t, "tools/list_changed", a.changed, func(struct{}) bool { return true })
				tools, err := a.session.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "fresh" }) {
					t.Fatalf("the tool added downstream is not listed by the proxy")
				}
				if got := a.call(t, "fresh", map[string]any{}, nil); got != "I am fresh" {
					t.Errorf("fresh → %q", got)
				}
				// The prompt it added too: re-read, announced, served.
				await(t, "prompts/list_changed", a.prompts, func(struct{}) bool { return true })
				pr, err := a.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "fresh_prompt"})
				if err != nil {
					t.Fatalf("the prompt added downstream: %v", err)
				}
				if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "prompt fresh" {
					t.Errorf("fresh_prompt → %+v", pr.Messages[0].Content)
				}
			})
			t.Run("cancellation", func(t *testing.T) {
				cctx, cancel := context.WithCancel(ctx)
				errc := make(chan error, 1)
				go func() {
					_, err := a.session.CallTool(cctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "blk"}})
					errc <- err
				}()
				await(t, "progress of the blocked call", a.progress, func(s string) bool { return s == `"blk" blocking` })
				cancel()
				if err := <-errc; err == nil {
					t.Errorf("the cancelled call returned no error")
				}
				if got := a.call(t, "was_cancelled", map[string]any{}, nil); got != "yes" {
					t.Errorf("the downstream did not see the cancellation: %q", got)
				}
			})

			stop := a.call(t, "reelier_stop_recording", nil, nil)
			if !strings.HasPrefix(stop, "Stopped recording.") {
				t.Fatalf("stop: %q", stop)
			}
			path := filepath.Join(a.dir, "relay-1.jsonl")
			checkRelayTrace(t, path, version)
			// The compiler reads the new fields as it reads any result.
			skill := filepath.Join(t.TempDir(), "relay.skill.md")
			if out, err := exec.Command(reelierBin(t), "compile", path, "-o", skill).CombinedOutput(); err != nil {
				t.Errorf("reelier compile of the relay trace: %v\n%s", err, out)
			} else if b, err := os.ReadFile(skill); err != nil || !strings.Contains(string(b), "ask_model") {
				t.Errorf("the compiled skill lacks ask_model: %v\n%s", err, b)
			}
		})
	}
}

// checkRelayTrace checks what the recording kept of the relay.
func checkRelayTrace(t *testing.T, path, version string) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[int]string{}
	results := map[string]*trace.Result{}
	for _, rec := range tr.Records {
		switch r := rec.(type) {
		case *trace.Call:
			calls[r.I] = r.Tool
		case *trace.Result:
			results[calls[r.I]] = r
		}
	}
	exchange := func(tool, method, inResult string) {
		t.Helper()
		r := results[tool]
		if r == nil {
			t.Errorf("no result recorded for %s", tool)
			return
		}
		if len(r.Relay) != 1 || r.Relay[0].Method != method || !r.Relay[0].OK || !strings.Contains(string(r.Relay[0].Result), inResult) || len(r.Relay[0].Params) == 0 {
			t.Errorf("%s's relay: %+v; want one %s answered with %s", tool, r.Relay, method, inResult)
		}
	}
	exchange("ask_model", "sampling/createMessage", `"text":"echo: hello"`)
	exchange("ask_person", "elicitation/create", `"name":"Ada"`)
	exchange("list_roots", "roots/list", agentRoot)
	// The downstream sends progress and its log message before the
	// result, in the call's own request; they are counted on it.
	if r := results["chatter"]; r == nil || r.Notified["notifications/progress"] != 1 || r.Notified["notifications/message"] != 1 {
		b, _ := os.ReadFile(path)
		t.Errorf("chatter's notifications: %+v\n%s", r, b)
	}
	if r := results["block"]; r == nil || !r.Cancelled || r.OK {
		t.Errorf("block's result: %+v; want cancelled, not ok", r)
	}
	if r := results["fresh"]; r == nil || !r.OK {
		t.Errorf("fresh's result: %+v", r)
	}
}

// TestRelayRefusesWhatTheAgentLacks: an agent that declared neither
// sampling, elicitation nor roots: the downstream's requests get a
// JSON-RPC error that names the missing capability, and the tool says so.
func TestRelayRefusesWhatTheAgentLacks(t *testing.T) {
	for _, version := range relayRevisions {
		t.Run(version, func(t *testing.T) {
			a := startRelayAgent(t, version, false, relayServerCommand())
			for tool, want := range map[string]string{
				"ask_model":  "sampling/createMessage from downstream 0 (" + relayServerCommand() + ") was refused: the agent did not declare the sampling capability",
				"ask_person": "elicitation/create from downstream 0 (" + relayServerCommand() + ") was refused: the agent did not declare the elicitation capability",
				"list_roots": "roots/list from downstream 0 (" + relayServerCommand() + ") was refused: the agent did not declare the roots capability",
			} {
				args := map[string]any{}
				if tool == "ask_model" {
					args["prompt"] = "x"
				}
				got := a.call(t, tool, args, nil)
				// The go-sdk server shows "method not found" for the
				// code, whatever the message; the proxy's stderr says why.
				if !strings.HasPrefix(got, "ERROR: ") || !strings.Contains(got, "method not found") {
					t.Errorf("%s → %q; want the downstream's error for Method not found", tool, got)
				}
				if !strings.Contains(a.errText(t), want) {
					t.Errorf("stderr lacks %q:\n%s", want, a.errText(t))
				}
			}
		})
	}
}

// TestReplayAnswersNoAgent: what a replay's downstream client (no agent)
// answers: sampling refused with an error naming the downstream, roots
// an empty list.
func TestReplayAnswersNoAgent(t *testing.T) {
	var stderr syncBuffer
	r, err := mcpx.Start(context.Background(), []string{relayServerCommand()}, mcpx.Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _, err := r.Call(context.Background(), "ask_model", json.RawMessage(`{"prompt":"x"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); !res.IsError || !strings.Contains(got, "method not found") {
		t.Errorf("ask_model in a replay → %q", got)
	}
	if want := "reelier run has no agent to answer sampling/createMessage from downstream 0"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	res, _, err = r.Call(context.Background(), "list_roots", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); res.IsError || got != "roots: " {
		t.Errorf("list_roots in a replay → %q", got)
	}
}

// TestRelayPausesTheCallLimit: the call limit does not run while the
// agent answers the downstream's request: an answer that takes longer
// than --call-timeout still completes the call.
func TestRelayPausesTheCallLimit(t *testing.T) {
	a := startRelayAgentArgs(t, "2025-11-25", true, []string{"--call-timeout", "1s"}, relayServerCommand())
	if got := a.call(t, "ask_model", map[string]any{"prompt": slowPrompt}, nil); got != "model test-model said: echo: "+slowPrompt {
		t.Errorf("ask_model with a slow answer → %q", got)
	}
}

// TestRelayConcurrentInProcess: the proxy in this process (so the race
// detector sees it), the relay server as a child process, and an agent in
// memory on each revision making many sampling calls at once: every call
// gets the answer to its own prompt, and the recording keeps every
// exchange once.
func TestRelayConcurrentInProcess(t *testing.T) {
	for _, version := range relayRevisions {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			ctx := context.Background()
			p, err := record.Start(ctx, []string{relayServerCommand()}, record.Options{TraceDir: dir, Redactor: redact.NewRedactor(nil, nil), Stderr: &syncBuffer{}, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			st, ct := mcp.NewInMemoryTransports()
			served := make(chan error, 1)
			go func() { served <- p.Serve(ctx, st) }()
			client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					tc, _ := req.Params.Messages[0].Content.(*mcp.TextContent)
					return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "echo: " + tc.Text}}, nil
				},
			})
			cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				cs.Close()
				<-served
				p.Close()
			}()
			callSession(t, cs, "reelier_start_recording", map[string]any{"name": "many"}, nil)
			const n = 20
			errs := make(chan string, n)
			for k := range n {
				go func() {
					prompt := fmt.Sprintf("prompt %d", k)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_model", Arguments: map[string]any{"prompt": prompt}})
					switch {
					case err != nil:
						errs <- err.Error()
					case resultText(res) != "model m said: echo: "+prompt:
						errs <- fmt.Sprintf("%s → %q", prompt, resultText(res))
					default:
						errs <- ""
					}
				}()
			}
			for range n {
				if e := <-errs; e != "" {
					t.Error(e)
				}
			}
			callSession(t, cs, "reelier_stop_recording", nil, nil)
			tr, err := trace.Load(filepath.Join(dir, "many-1.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			exchanges := 0
			for _, rec := range tr.Records {
				if r, ok := rec.(*trace.Result); ok {
					exchanges += len(r.Relay)
				}
			}
			if exchanges != n {
				t.Errorf("%d exchanges recorded; want %d", exchanges, n)
			}
		})
	}
}
