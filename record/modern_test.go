package record_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/trace"
)

// TestRelayModernDownstream: a downstream that speaks only 2026-07-28
// (modernserver_test.go: it refuses initialize) is wrapped by the reelier
// binary for an agent on each revision. The proxy starts it again on
// 2026-07-28 and says so; its sampling input request reaches the agent
// and the answer comes back; its roots input request is answered with
// none (the go-sdk client answers it from its own list, which the proxy
// keeps empty: the agent's roots cannot be relayed to it); its log
// message reaches the agent at the level the agent asked for; a tool it
// adds is re-read, announced and callable; a resource update reaches the
// subscribed agent. The recording keeps the relayed sampling exchange;
// the trace compiles, and `reelier run --wrap` replays the skill against
// the same server.
func TestRelayModernDownstream(t *testing.T) {
	for _, version := range relayRevisions {
		t.Run(version, func(t *testing.T) {
			a := startRelayAgent(t, version, true, modernServerCommand())
			if want := "it refused the 2025-11-25 handshake"; !strings.Contains(a.errText(t), want) || !strings.Contains(a.errText(t), "spoken to on protocol revision 2026-07-28") {
				t.Errorf("stderr does not say the downstream was started on 2026-07-28:\n%s", a.errText(t))
			}
			// A recording the replay can make: no sampling in it.
			a.call(t, "reelier_start_recording", map[string]any{"name": "modern"}, nil)
			if got := a.call(t, "list_roots", map[string]any{}, nil); got != "roots: " {
				t.Errorf("list_roots → %q; want no roots", got)
			}
			var meta mcp.Meta
			if version < "2026-07-28" {
				if err := a.session.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
					t.Fatal(err)
				}
			} else {
				meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
			}
			if got := a.call(t, "greet", map[string]any{"name": "Ada"}, meta); got != "hello Ada" {
				t.Errorf("greet → %q", got)
			}
			await(t, "log message", a.logs, func(s string) bool { return s == `"greeting Ada"` })
			if stop := a.call(t, "reelier_stop_recording", nil, nil); !strings.HasPrefix(stop, "Stopped recording.") {
				t.Fatalf("stop: %q", stop)
			}
			// The sampling input request, relayed to the agent and kept.
			a.call(t, "reelier_start_recording", map[string]any{"name": "asks"}, nil)
			if got := a.call(t, "ask_model", map[string]any{"prompt": "hello"}, nil); got != "model test-model said: echo: hello" {
				t.Errorf("ask_model → %q", got)
			}
			if got := a.call(t, "ask_person", map[string]any{}, nil); got != "action=accept name=Ada" {
				t.Errorf("ask_person → %q", got)
			}
			if stop := a.call(t, "reelier_stop_recording", nil, nil); !strings.HasPrefix(stop, "Stopped recording.") {
				t.Fatalf("stop: %q", stop)
			}
			tr, err := trace.Load(filepath.Join(a.dir, "asks-1.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var relayed []trace.Exchange
			for _, rec := range tr.Records {
				if r, ok := rec.(*trace.Result); ok {
					relayed = append(relayed, r.Relay...)
				}
			}
			if len(relayed) != 2 || relayed[0].Method != "sampling/createMessage" || !relayed[0].OK || !strings.Contains(string(relayed[0].Result), "echo: hello") ||
				relayed[1].Method != "elicitation/create" || !relayed[1].OK || !strings.Contains(string(relayed[1].Result), `"name":"Ada"`) {
				t.Errorf("the relayed exchanges kept: %+v; want ask_model's sampling, then ask_person's elicitation", relayed)
			}

			// A tool added downstream: announced on the server's
			// subscriptions/listen stream, re-read, announced to the
			// agent and callable.
			if got := a.call(t, "grow", map[string]any{"name": "fresh"}, nil); got != "grown" {
				t.Fatalf("grow → %q", got)
			}
			await(t, "tools/list_changed", a.changed, func(struct{}) bool { return true })
			tools, err := a.session.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "fresh" }) {
				t.Fatalf("the tool added downstream is not listed by the proxy")
			}
			if got := a.call(t, "fresh", map[string]any{}, nil); got != "I am fresh" {
				t.Errorf("fresh → %q", got)
			}

			// A resource update, after the agent subscribed.
			if err := a.session.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "modern://doc"}); err != nil {
				t.Fatalf("subscribing to the 2026-07-28 server's resource: %v", err)
			}
			if got := a.call(t, "subscribed", map[string]any{}, nil); got != "yes" {
				t.Fatalf("the subscription did not reach the downstream: %q", got)
			}
			if got := a.call(t, "touch", map[string]any{}, nil); got != "touched" {
				t.Errorf("touch → %q", got)
			}
			await(t, "resource update", a.updated, func(s string) bool { return s == "modern://doc" })

			// The replay: compile, then `reelier run --wrap` the server.
			path := filepath.Join(a.dir, "modern-1.jsonl")
			skill := filepath.Join(t.TempDir(), "modern.skill.md")
			if out, errOut, code := reelierCmd(t, nil, "compile", path, "-o", skill); code != 0 {
				t.Fatalf("reelier compile: exit %d\n%s%s", code, out, errOut)
			}
			if b, _ := os.ReadFile(skill); !strings.Contains(string(b), "greet") || !strings.Contains(string(b), "list_roots") {
				t.Fatalf("the compiled skill lacks its steps:\n%s", b)
			}
			runs := t.TempDir()
			out, errOut, code := reelierCmd(t, nil, "run", skill, "--runs-dir", runs, "--yes", "--wrap", modernServerCommand())
			if code != 0 {
				t.Fatalf("reelier run --wrap on the 2026-07-28 server: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			records, _ := filepath.Glob(filepath.Join(runs, "*.jsonl"))
			if len(records) != 1 {
				t.Fatalf("%d run records; want 1", len(records))
			}
			b, _ := os.ReadFile(records[0])
			if !strings.Contains(string(b), `"verdict":"passed"`) || !strings.Contains(string(b), `"passed":2,`) {
				t.Errorf("the replay did not pass both steps:\n%s", b)
			}
		})
	}
}

// TestRelayModernRefusesWhatTheAgentLacks: an agent that declared neither
// sampling nor elicitation, and a downstream on 2026-07-28 asking for
// them as input requests: refused, stderr saying why; the call ends with
// an error result naming the downstream and the missing capability.
func TestRelayModernRefusesWhatTheAgentLacks(t *testing.T) {
	for _, version := range relayRevisions {
		t.Run(version, func(t *testing.T) {
			a := startRelayAgent(t, version, false, modernServerCommand())
			for tool, want := range map[string]string{
				"ask_model":  "sampling/createMessage from downstream 0 (" + modernServerCommand() + ") was refused: the agent did not declare the sampling capability",
				"ask_person": "elicitation/create from downstream 0 (" + modernServerCommand() + ") was refused: the agent did not declare the elicitation capability",
			} {
				args := map[string]any{}
				if tool == "ask_model" {
					args["prompt"] = "x"
				}
				// The SDK's client fails the call itself: the agent's
				// error result names the downstream and the capability.
				got := a.call(t, tool, args, nil)
				if !strings.HasPrefix(got, "ERROR: reelier: downstream 0") || !strings.Contains(got, "multi round-trip") || !strings.Contains(got, "the agent did not declare the") {
					t.Errorf("%s → %q; want the proxy's error result naming the missing capability", tool, got)
				}
				if !strings.Contains(a.errText(t), want) {
					t.Errorf("stderr lacks %q:\n%s", want, a.errText(t))
				}
			}
		})
	}
}

// TestReplayModernAnswersNoAgent: what a replay's downstream client (no
// agent) answers a downstream on 2026-07-28: its sampling input request
// fails the call, its roots input request gets no roots.
func TestReplayModernAnswersNoAgent(t *testing.T) {
	var stderr syncBuffer
	r, err := mcpx.Start(context.Background(), []string{modernServerCommand()}, mcpx.Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The SDK's client fails the call itself, tersely (no handler, so no
	// capability declared): the replay's step fails naming the downstream.
	_, _, err = r.Call(context.Background(), "ask_model", json.RawMessage(`{"prompt":"x"}`), nil)
	if err == nil || !strings.Contains(err.Error(), "downstream 0 (") || !strings.Contains(err.Error(), "client does not support CreateMessage") {
		t.Errorf("ask_model in a replay: %v", err)
	}
	res, _, err := r.Call(context.Background(), "list_roots", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); res.IsError || got != "roots: " {
		t.Errorf("list_roots in a replay → %q", got)
	}
}
