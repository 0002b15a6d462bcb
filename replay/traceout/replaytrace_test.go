package traceout

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

const skillSrc = `---
name: items
description: make an item and read it back
---

## Servers

- ` + "`mcptest`" + `: ` + "`mcptestserver -name mcptest`" + ` (tools: create_item, get_item, echo)

## Steps

### Step 1 — Create an item
- intent: make one
- action: create_item {"title": "demo"}
- assert: json.id is string
- effect: idempotent-write

### Step 2 — Read it back
- intent: read it
- action: get_item {"id": "x"}
- effect: read

### Step 3 — Delete it
- intent: clean up
- action: delete_item {"id": "x"}
- effect: destructive

### Step 4 — Fetch a page
- intent: http
- action: http.get {"url": "http://127.0.0.1:1/page", "headers": {"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz012345"}}
- effect: read

### Step 5 — Add
- intent: structured
- action: add {"a": 1, "b": 2}
- effect: read
`

// secret is a credential-shaped value, assembled so no literal sits here.
var secret = "ghp_" + strings.Repeat("Zt7q", 9)

func TestRecorder(t *testing.T) {
	skill, diags := grammar.Parse("items.skill.md", []byte(skillSrc))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	clock := time.Date(2026, 7, 18, 14, 0, 1, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(100 * time.Millisecond); return clock }
	rec := New(skill, Options{Redactor: &redact.Redactor{}, Now: now})
	var seen []int
	hook := rec.Hook(func(sr *replay.StepResult) { seen = append(seen, sr.Step.Number) })
	step := func(i int, action *replay.Action, obs *tool.Observation, failure string) *replay.StepResult {
		sr := &replay.StepResult{Step: skill.Steps[i], Record: &runlog.StepRecord{N: i + 1, Ms: int64(10 * (i + 1))}, Action: action, Observation: obs}
		if failure != "" {
			sr.Failures = []replay.Failure{{Message: failure}}
		}
		return sr
	}
	// 1: a JSON text result with a secret in it; 2: the call failed;
	// 3: refused by the gate, never called; 4: an http tool's 404 with
	// headers; 5: structured content.
	hook(step(0, &replay.Action{Tool: "create_item", Args: []byte(`{"title":"demo"}`)},
		&tool.Observation{Status: 200, Headers: map[string]string{}, Body: `{"id":"item-1","token":"` + secret + `"}`}, ""))
	hook(step(1, &replay.Action{Tool: "get_item", Args: []byte(`{"id":"x"}`)}, nil, "Tool execution failed: downstream 0 (mcptestserver) failed: it exited (exit status 3)"))
	hook(step(2, nil, nil, "Refusing to execute destructive step without --yes. Filled action: delete_item {\"id\":\"x\"}"))
	hook(step(3, &replay.Action{Tool: "http.get", Args: []byte(`{"url":"http://127.0.0.1:1/page","headers":{"Authorization":"Bearer abcdefghijklmnopqrstuvwxyz012345"}}`)},
		&tool.Observation{Status: 404, Headers: map[string]string{"content-type": "text/html"}, Body: "<html>not here</html>"}, ""))
	hook(step(4, &replay.Action{Tool: "add", Args: []byte(`{"a":1,"b":2}`)},
		&tool.Observation{Status: 200, Headers: map[string]string{}, Body: `{"sum":3}`, Structured: []byte(`{ "sum": 3 }`)}, ""))
	if d := cmp.Diff([]int{1, 2, 3, 4, 5}, seen); d != "" {
		t.Errorf("the hook did not pass every step on (-want +got):\n%s", d)
	}
	if rec.Calls() != 4 {
		t.Errorf("Calls() = %d, want 4 (the refused step made none)", rec.Calls())
	}
	var buf bytes.Buffer
	if err := rec.Write(&buf, "2026-07-18T14:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t).Assert(t, "trace", buf.Bytes())
	if strings.Contains(buf.String(), secret) || strings.Contains(buf.String(), "abcdefghijklmnopqrstuvwxyz012345") {
		t.Error("a secret reached the trace")
	}
	tr, err := trace.Read(&buf)
	if err != nil {
		t.Fatalf("the trace does not read back: %v", err)
	}
	if tr.Meta.Observed != Observed || tr.Meta.Name != "items" || len(tr.Meta.Servers) != 1 || len(tr.Meta.Wrapped) != 1 {
		t.Errorf("meta = %+v", tr.Meta)
	}

	// Written to a file: atomically, the folder made, and with --wrap no
	// command in "wrapped".
	rec.opts.Wrapped = true
	path := filepath.Join(t.TempDir(), "sub", "replay.jsonl")
	if err := rec.WriteFile(path, "2026-07-18T14:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	got, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Meta.Wrapped) != 0 || len(got.Meta.Servers) != 1 {
		t.Errorf("with --wrap: wrapped %q, servers %+v", got.Meta.Wrapped, got.Meta.Servers)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", info.Mode(), err)
	}
}

// TestResultBodyRoundTrip: the rebuilt result reads back, through the one
// mapping replay and compile use, as the observation it was built from.
func TestResultBodyRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		obs  tool.Observation
	}{
		{"json text", tool.Observation{Status: 200, Body: `{"items":[{"id":"a","status":"open"}]}`}},
		{"plain text", tool.Observation{Status: 200, Body: "mcptest: hi\nsecond line"}},
		{"empty", tool.Observation{Status: 200}},
		{"error result", tool.Observation{Status: 500, Body: "no item \"x\""}},
		{"structured", tool.Observation{Status: 200, Body: `{"sum":3}`, Structured: []byte(`{"sum":3}`)}},
		{"structured beside prose", tool.Observation{Status: 200, Body: "made it", Structured: []byte(`{"id":"item-1","n":12345678901234567890}`)}},
		{"http 404", tool.Observation{Status: 404, Body: "<html>not here</html>"}},
		{"http 201", tool.Observation{Status: 201, Body: `{"ok":true}`}},
		{"html characters", tool.Observation{Status: 200, Body: `<a href="x">&</a>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := ResultBody(&tt.obs)
			if !json.Valid(body) {
				t.Fatalf("not JSON: %s", body)
			}
			tr, err := tool.ParseToolResult(body)
			if err != nil {
				t.Fatal(err)
			}
			back := tr.Observation()
			wantStatus := tt.obs.Status
			if wantStatus != 200 && wantStatus != 500 {
				// Only _meta keeps it; MCP says error or not.
				var m struct {
					Meta map[string]int `json:"_meta"`
				}
				json.Unmarshal(body, &m)
				if m.Meta[StatusMeta] != wantStatus {
					t.Errorf("_meta status %v, want %d", m.Meta, wantStatus)
				}
				wantStatus = 200
				if tt.obs.Status >= 400 {
					wantStatus = 500
				}
			}
			if back.Status != wantStatus || back.Body != tt.obs.Body {
				t.Errorf("read back status %d body %q, want %d %q", back.Status, back.Body, wantStatus, tt.obs.Body)
			}
			wantDoc, wantErr := (&tool.Observation{Body: tt.obs.Body, Structured: tt.obs.Structured}).JSON()
			gotDoc, gotErr := back.JSON()
			if (wantErr == nil) != (gotErr == nil) || wantErr == nil && jsondata.String(wantDoc) != jsondata.String(gotDoc) {
				t.Errorf("json document %s (%v), want %s (%v)", jsondata.String(gotDoc), gotErr, jsondata.String(wantDoc), wantErr)
			}
		})
	}
}
