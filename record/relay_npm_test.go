package record_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/trace"
)

// TestRelayTypeScriptAgent: the official TypeScript SDK client as the
// agent, the reelier binary as `reelier mcp`, server-everything as the
// downstream. server-everything adds its sampling, elicitation and roots
// tools after its handshake, because the proxy declared those
// capabilities, and announces them with tools/list_changed: the proxy
// re-reads them and tells the agent. Then each tool's request reaches the
// agent, its answer the server, and the recording keeps the exchanges
// made during the calls.
func TestRelayTypeScriptAgent(t *testing.T) {
	npmPackage(t, "@modelcontextprotocol/sdk")
	wrap := everything(t)
	dir := t.TempDir()
	calls := `[["reelier_start_recording", {"name": "ts-relay"}],
		["trigger-sampling-request", {"prompt": "hello", "maxTokens": 20}],
		["trigger-elicitation-request", {}],
		["get-roots-list", {}],
		["reelier_stop_recording", {}]]`
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "relay_agent.mjs"),
		"--want", "trigger-sampling-request,trigger-elicitation-request,get-roots-list", "--call", calls,
		"--", reelierBin(t), "mcp", "--trace-dir", dir, "--wrap", wrap)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript agent: %v\nstderr:\n%s", err, stderr.String())
	}
	var got []struct {
		Name    string `json:"name"`
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got) != 5 {
		t.Fatalf("agent output %q: %v", out, err)
	}
	want := map[string]string{
		"trigger-sampling-request":    `"text": "ts says: Resource trigger-sampling-request context: hello"`,
		"trigger-elicitation-request": "- Name: Ada Lovelace",
		"get-roots-list":              "URI: file:///ts/root",
	}
	for _, g := range got[1:4] {
		if g.IsError || !strings.Contains(g.Text, want[g.Name]) {
			t.Errorf("%s → %q (isError %v); want it to hold %q", g.Name, g.Text, g.IsError, want[g.Name])
		}
	}
	tr, err := trace.Load(filepath.Join(dir, "ts-relay-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, rec := range tr.Records {
		if r, ok := rec.(*trace.Result); ok {
			for _, e := range r.Relay {
				if !e.OK {
					t.Errorf("a relayed %s failed: %s", e.Method, e.Error)
				}
				methods = append(methods, e.Method)
			}
		}
	}
	// server-everything asks for the roots when the agent's come (the
	// proxy tells it they changed) and answers get-roots-list from what
	// it got then: that exchange belongs to no call and is not kept.
	for _, m := range []string{"sampling/createMessage", "elicitation/create"} {
		if !slices.Contains(methods, m) {
			t.Errorf("the trace keeps no %s exchange (it keeps %v)", m, methods)
		}
	}
}

// TestRelayEverythingNotifications: the go-sdk agent on each revision
// with server-everything: its log messages (toggle-simulated-logging, at
// the level the agent set) and the progress of a long-running operation
// reach the agent through the proxy.
func TestRelayEverythingNotifications(t *testing.T) {
	wrap := everything(t)
	for _, version := range relayRevisions {
		t.Run(version, func(t *testing.T) {
			a := startRelayAgent(t, version, true, wrap)
			ctx := context.Background()
			var meta mcp.Meta = mcp.Meta{"progressToken": "long"}
			if version < "2026-07-28" {
				if err := a.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
					t.Fatal(err)
				}
			} else {
				meta[mcp.MetaKeyLogLevel] = "debug"
			}
			if got := a.call(t, "trigger-long-running-operation", map[string]any{"duration": 1, "steps": 2}, meta); !strings.Contains(got, "Long running operation completed") {
				t.Errorf("trigger-long-running-operation → %q", got)
			}
			await(t, "progress notification", a.progress, func(s string) bool { return strings.HasPrefix(s, `"long"`) })
			if version < "2026-07-28" {
				a.call(t, "toggle-simulated-logging", map[string]any{}, nil)
				await(t, "log message", a.logs, func(string) bool { return true })
				a.call(t, "toggle-simulated-logging", map[string]any{}, nil)
			}
		})
	}
}
