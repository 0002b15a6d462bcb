package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/policy/engine"
	"github.com/reelier/reelier/redact"
)

// policySession runs calls under a policy through a proxy with the fast
// path on or off, and returns the trace (normalized), the responses and
// how many calls took the fast path.
func policySession(t *testing.T, noFast bool) (string, []json.RawMessage, int64) {
	f := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(f, []byte(`default: allow
rules:
  - name: no-fail
    when: tool == "fail"
    action: deny
    message: failing is not allowed
  - name: rehearse-add
    when: tool == "add" && args.a > 0
    action: dry-run
  - name: ask-slow
    when: tool == "slow"
    action: ask
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := engine.Load("", f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p, err := Start(context.Background(), []string{fmt.Sprintf("'%s' -name a", os.Args[0])}, Options{
		TraceDir: dir, Redactor: redact.NewRedactor(nil, nil), NoFastPath: noFast, Policy: pol,
		Now: func() time.Time { return time.Date(2026, 7, 18, 14, 2, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, served := newRawAgent(t, p)
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pol","version":"1"}}}`)
	a.wait("0")
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var resps []json.RawMessage
	call := func(id, name string, args any) {
		a.send(callLine(id, name, args, nil))
		resps = append(resps, a.wait(id))
	}
	call("1", "reelier_start_recording", map[string]any{"name": "pol"})
	call("2", "echo", map[string]any{"text": "hello"})
	call("3", "fail", map[string]any{})
	call("4", "add", map[string]any{"a": 1, "b": 2})
	call("5", "add", map[string]any{"a": -1, "b": 2})
	call("6", "slow", map[string]any{"ms": 20000}) // no elicitation capability: refused at once
	call("7", "echo", map[string]any{"text": "after"})
	call("8", "reelier_stop_recording", map[string]any{})
	a.in.Close()
	if err := <-served; err != nil && err != io.EOF {
		t.Logf("serve: %v", err)
	}
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("trace files: %v %v", files, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	return normalizeTrace(t, data), resps, p.fastCalls.Load()
}

// TestPolicyFastPathDifferential: under a policy, the fast path and the
// SDK path answer and record the same: the allowed calls (echo twice, add
// with a negative a) take the fast path, the others are left to the SDK
// path, which refuses them before anything reaches the server.
func TestPolicyFastPathDifferential(t *testing.T) {
	fastTrace, fastResps, fastN := policySession(t, false)
	sdkTrace, sdkResps, sdkN := policySession(t, true)
	if fastN != 3 || sdkN != 0 {
		t.Errorf("fast-path calls: %d with it on (want 3), %d off (want 0)", fastN, sdkN)
	}
	if fastTrace != sdkTrace {
		t.Errorf("traces differ\nfast:\n%s\nsdk:\n%s", fastTrace, sdkTrace)
	}
	for k := 1; k < len(fastResps)-1; k++ { // the control tools name their own folders
		if string(fastResps[k]) != string(sdkResps[k]) {
			t.Errorf("response %d differs\nfast: %s\nsdk:  %s", k, fastResps[k], sdkResps[k])
		}
	}
	for _, want := range []string{
		`"policy":{"digest":"sha256:`,
		`"rule":"no-fail","action":"deny"}`,
		`"rule":"rehearse-add","action":"dry-run"}`,
		`"rule":"ask-slow","action":"ask","asked":"unsupported"}`,
	} {
		if !strings.Contains(fastTrace, want) {
			t.Errorf("the trace lacks %s:\n%s", want, fastTrace)
		}
	}
	if !strings.Contains(string(fastResps[2]), `failing is not allowed`) || !strings.Contains(string(fastResps[2]), `"isError":true`) {
		t.Errorf("denied: %s", fastResps[2])
	}
	if !strings.Contains(string(fastResps[3]), "dry run") {
		t.Errorf("dry run: %s", fastResps[3])
	}
}
