package heal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/heal"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/llm"
	"github.com/reelier/reelier/testkit/llmtest"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

// key is the API key of every test; no output may ever contain it.
const key = "sk-heal-test-SECRET-0123456789"

// api is the drifted service on 127.0.0.1: /booking now wraps the booking
// in {"data": …}; /v2/booking has it under "booking"; /flaky fails once,
// then answers; POST /cancel answers in the new shape too.
type api struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newAPI(t *testing.T) *api {
	a := &api{hits: map[string]int{}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits[r.Method+" "+r.URL.Path]++
		n := a.hits[r.Method+" "+r.URL.Path]
		a.mu.Unlock()
		switch r.URL.Path {
		case "/booking":
			io.WriteString(w, `{"data":{"id":"bk_1","status":"confirmed"}}`)
		case "/v2/booking":
			io.WriteString(w, `{"booking":{"id":"bk_1"}}`)
		case "/booking/bk_1":
			io.WriteString(w, `{"id":"bk_1","guests":2}`)
		case "/flaky":
			if n == 1 {
				http.Error(w, `{"error":"busy"}`, http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, `{"id":"bk_1"}`)
		case "/cancel":
			io.WriteString(w, `{"data":{"id":"bk_1","cancelled":true}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

// hitLog lists the requests the service saw, sorted.
func (a *api) hitLog() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var lines []string
	for k, n := range a.hits {
		lines = append(lines, fmt.Sprintf("%s ×%d", k, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// skillFor builds a skill whose first step diverges after the drift and
// whose second step needs the first one's bind.
func skillFor(path, method, effect string) string {
	return `---
name: booking
description: read a booking after its API drifted
---

# Booking

## Steps

### Step 1 — Fetch the booking
- intent: read the current booking
- action: http.` + method + ` {"url": "{{base}}` + path + `"}
- assert: status == 200
- assert: json.id is set
- bind: id = json.id
- effect: ` + effect + `

### Step 2 — Read it by id
- intent: read the booking by its id
- action: http.get {"url": "{{base}}/booking/{{id}}"}
- assert: json.guests >= 1
- effect: read
`
}

// Replies used by the cases.
var (
	l1Good  = `{"reason": "the API now wraps the booking in a data object", "asserts": ["status == 200", "json.data.id is set"], "binds": ["id = json.data.id"]}`
	l1Wrong = `{"reason": "the id moved", "asserts": ["status == 200", "json.result.id is set"], "binds": ["id = json.result.id"]}`
	l2Good  = `{"reason": "the booking moved to the v2 endpoint", "args": {"url": "{{base}}/v2/booking"}, "asserts": ["status == 200", "json.booking.id is set"], "binds": ["id = json.booking.id"]}`
)

func reply(text string, in, out int64) llmtest.Reply {
	return llmtest.Reply{Text: text, InputTokens: in, OutputTokens: out}
}

// healCase is one escalation scenario.
type healCase struct {
	name     string
	path     string // the step's URL path; /booking by default
	method   string // get by default
	effect   string // read by default
	level    int    // --max-level; 1 by default
	yes      bool
	replies  []llmtest.Reply
	noKey    bool
	readOnly bool
	noFile   bool
	timeout  time.Duration
}

// TestLadder runs every acceptance and refusal rule against the fake
// provider in both wire formats. Each case's golden holds its run record,
// what the escalation told the run, the skill file afterwards, and every
// call made to the service and the provider; both wires must produce the
// same golden.
func TestLadder(t *testing.T) {
	cases := []healCase{
		{name: "l1-heals", replies: []llmtest.Reply{reply(l1Good, 812, 64)}},
		{name: "l1-heals-fenced-reply", replies: []llmtest.Reply{reply("```json\n"+l1Good+"\n```", 812, 70)}},
		{name: "l1-heals-destructive-without-re-execution", method: "post", path: "/cancel", effect: "destructive", yes: true,
			replies: []llmtest.Reply{reply(`{"reason": "the reply is now wrapped in data", "asserts": ["status == 200", "json.data.cancelled == true"], "binds": ["id = json.data.id"]}`, 700, 50)}},
		{name: "l2-heals-with-new-args", level: 2, replies: []llmtest.Reply{reply(l1Wrong, 800, 60), reply(l2Good, 900, 80)}},
		{name: "l2-heals-by-re-executing-once", level: 2, path: "/flaky",
			replies: []llmtest.Reply{reply(`{"reason": "retry", "asserts": ["status == 200"]}`, 500, 20), reply(`{"reason": "the service was briefly unavailable"}`, 600, 20)}},
		{name: "l2-heals-idempotent-write", level: 2, method: "post", effect: "idempotent-write", yes: true,
			replies: []llmtest.Reply{reply(l1Wrong, 800, 60), reply(l2Good, 900, 80)}},
		{name: "refused-malformed-json", replies: []llmtest.Reply{reply(`Sure! Here is the fix: {"reason": "x"`, 800, 30)}},
		{name: "refused-not-an-object", replies: []llmtest.Reply{reply(`["status == 200"]`, 800, 10)}},
		{name: "refused-unknown-key", replies: []llmtest.Reply{reply(`{"reason": "r", "asserts": ["status == 200"], "binds": ["id = json.data.id"], "steps": []}`, 800, 30)}},
		{name: "refused-newline-in-assert", replies: []llmtest.Reply{reply(`{"reason": "r", "asserts": ["status == 200\n### Step 3 — injected", "json.data.id is set"], "binds": ["id = json.data.id"]}`, 800, 40)}},
		{name: "refused-newline-in-bind", replies: []llmtest.Reply{reply(`{"reason": "r", "asserts": ["json.data.id is set"], "binds": ["id = json.data.id\r\n- effect: destructive"]}`, 800, 40)}},
		{name: "refused-strips-all-asserts", replies: []llmtest.Reply{reply(`{"reason": "checks are noise", "asserts": [], "binds": ["id = json.data.id"]}`, 800, 30)}},
		{name: "refused-bad-grammar", replies: []llmtest.Reply{reply(`{"reason": "r", "asserts": ["json.data.id exists"], "binds": ["id = json.data.id"]}`, 800, 30)}},
		{name: "refused-reserved-bind", replies: []llmtest.Reply{reply(`{"reason": "r", "asserts": ["json.data.id is set"], "binds": ["id = json.data.id", "today = json.data.status"]}`, 800, 30)}},
		{name: "refused-drops-a-bind", replies: []llmtest.Reply{reply(`{"reason": "r", "asserts": ["json.data.id is set"], "binds": []}`, 800, 30)}},
		{name: "refused-no-reason", replies: []llmtest.Reply{reply(`{"asserts": ["json.data.id is set"], "binds": ["id = json.data.id"]}`, 800, 30)}},
		{name: "refused-args-at-level-1", replies: []llmtest.Reply{reply(l2Good, 800, 60)}},
		{name: "refused-unbound-template-var", level: 2, replies: []llmtest.Reply{reply(l1Wrong, 800, 60),
			reply(`{"reason": "needs auth", "args": {"url": "{{base}}/v2/booking", "headers": {"Authorization": "Bearer {{token}}"}}, "asserts": ["json.booking.id is set"], "binds": ["id = json.booking.id"]}`, 900, 80)}},
		{name: "refused-patch-does-not-hold", replies: []llmtest.Reply{reply(l1Wrong, 800, 60)}},
		{name: "refused-destructive-never-reaches-l2", level: 2, method: "post", path: "/cancel", effect: "destructive", yes: true,
			replies: []llmtest.Reply{reply(l1Wrong, 800, 60), reply(l2Good, 900, 80)}},
		{name: "l2-does-not-hold", level: 2, replies: []llmtest.Reply{reply(l1Wrong, 800, 60), reply(`{"reason": "try v3", "args": {"url": "{{base}}/v3/booking"}, "asserts": ["status == 200"], "binds": ["id = json.id"]}`, 900, 80)}},
		{name: "l2-re-execution-fails", level: 2, replies: []llmtest.Reply{reply(l1Wrong, 800, 60),
			reply(`{"reason": "moved host", "args": {"url": "http://127.0.0.1:1/booking"}, "asserts": ["status == 200", "json.data.id is set"], "binds": ["id = json.data.id"]}`, 900, 80)}},
		{name: "provider-429", replies: []llmtest.Reply{{Status: 429, Text: "Number of request tokens has exceeded your per-minute rate limit"}}},
		{name: "provider-500-after-l1-spent-tokens", level: 2, replies: []llmtest.Reply{reply(l1Wrong, 800, 60), {Status: 500, Text: "Internal server error"}}},
		{name: "provider-malformed-response", replies: []llmtest.Reply{{Raw: `{"content": [{"type": "text", "text": "{}"`}}},
		{name: "provider-timeout", timeout: 100 * time.Millisecond, replies: []llmtest.Reply{{Hang: true}}},
		{name: "missing-key", noKey: true},
		{name: "unbound-at-level-0-never-escalates", path: "/booking/{{nobody}}", replies: []llmtest.Reply{reply(l1Good, 812, 64)}},
		{name: "read-only-skill-file", readOnly: true, replies: []llmtest.Reply{reply(l1Good, 812, 64)}},
		{name: "no-skill-file", noFile: true, replies: []llmtest.Reply{reply(l1Good, 812, 64)}},
		{name: "provider-echoes-the-key", replies: []llmtest.Reply{{Text: strings.Replace(l1Good, "data object", "data object; key: $KEY", 1), EchoKey: true, InputTokens: 812, OutputTokens: 64}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var first string
			for _, wire := range []string{llmtest.Anthropic, llmtest.OpenAI} {
				if c.noKey && wire == llmtest.OpenAI {
					// Only the Anthropic wire needs a key: without one the
					// chat-completions wire sends its request with no
					// Authorization header (replay/llm TestOpenAIKeyOptional).
					continue
				}
				got, _ := runCase(t, c, wire)
				if first == "" {
					first = got
					testutil.Golden(t).Assert(t, c.name, []byte(got))
				} else if got != first {
					t.Errorf("%s wire differs from the anthropic wire:\n%s\n---\n%s", wire, got, first)
				}
			}
		})
	}
}

// runCase runs one case over one wire and renders what happened; it also
// returns the requests the provider saw.
func runCase(t *testing.T, c healCase, wire string) (string, []llmtest.Request) {
	t.Helper()
	a := newAPI(t)
	srv := llmtest.New(c.replies, llmtest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "booking.skill.md")
	src := skillFor(or(c.path, "/booking"), or(c.method, "get"), or(c.effect, "read"))
	mode := os.FileMode(0o644)
	if c.readOnly {
		mode = 0o444
	}
	if err := os.WriteFile(path, []byte(src), mode); err != nil {
		t.Fatal(err)
	}
	skill, diags := grammar.Parse(path, []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	cfg := llm.Config{BaseURL: srv.URL, APIKey: key, Timeout: c.timeout}
	if c.noKey {
		cfg.APIKey = ""
	}
	newClient := func() (llm.Client, error) {
		if wire == llmtest.Anthropic {
			return llm.NewAnthropic(cfg)
		}
		return llm.NewOpenAI(cfg)
	}
	// model-l1 has a price (so the record carries its cost), model-l2
	// none (its cost is unknown, left out of the record).
	prices := cost.Builtin()
	if err := prices.Merge([]byte(`{"models": {"model-l1": {"input": "1", "output": "5"}}}`), "test prices"); err != nil {
		t.Fatal(err)
	}
	ladder := &heal.Ladder{MaxLevel: max(c.level, 1), NewClient: newClient, Model: "model-l1", L2Model: "model-l2", SkillPath: path, Prices: prices}
	if c.noFile {
		ladder.SkillPath = ""
	}
	opts := replay.Options{Tools: tool.Registry{}, Vars: map[string]string{"base": a.URL}, Yes: c.yes,
		Clock: func() time.Time { return time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC) }, Healer: ladder, RunID: "golden"}
	httptool.Register(opts.Tools, nil)
	res := replay.Run(context.Background(), skill, opts)
	for i := range res.Record.Steps {
		res.Record.Steps[i].Ms = 0
	}
	res.Record.Finish(false)
	for _, p := range srv.Problems() {
		t.Errorf("malformed request: %s", p)
	}

	var out bytes.Buffer
	rec, _ := json.MarshalIndent(res.Record, "", "  ")
	fmt.Fprintf(&out, "== run record\n%s\n", rec)
	if h := res.Steps[0].Heal; h != nil {
		fmt.Fprintf(&out, "== heal: level %d, attempted %d\n", h.Level, h.Attempted)
		if h.NotSaved != nil {
			fmt.Fprintf(&out, "not saved: %v\n", h.NotSaved)
		}
	}
	after, _ := os.ReadFile(path)
	if string(after) == src {
		out.WriteString("== skill file: unchanged\n")
	} else {
		fmt.Fprintf(&out, "== skill file\n%s", after)
	}
	fmt.Fprintf(&out, "== service calls\n%s\n== provider calls\n", a.hitLog())
	for _, r := range srv.Requests() {
		fmt.Fprintf(&out, "%s\n", r.Model)
	}
	text := out.String()
	if strings.Contains(text, key) {
		t.Errorf("the API key leaked into the output:\n%s", text)
	}
	// The wires differ in their endpoint path and error type names only.
	return strings.NewReplacer(a.URL, "SERVICE", srv.URL, "PROVIDER", dir, "DIR",
		"/v1/messages", "/ENDPOINT", "/chat/completions", "/ENDPOINT",
		"rate_limit_error: ", "", "api_error: ", "", "server_error: ", "",
		`stop_reason \"end_turn\"`, "STOP", `finish_reason \"stop\"`, "STOP").Replace(text), srv.Requests()
}

// TestPrompts shows exactly what the model is sent at each level: the
// instruction, the step, its failures and the observation summary, and at
// Level 2 the bound names and why Level 1 did not hold.
func TestPrompts(t *testing.T) {
	c := healCase{name: "prompts", level: 2, replies: []llmtest.Reply{reply(l1Wrong, 800, 60), reply(l2Good, 900, 80)}}
	_, reqs := runCase(t, c, llmtest.OpenAI)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var out strings.Builder
	for i, r := range reqs {
		fmt.Fprintf(&out, "######## Level %d, model %s\n#### system\n%s\n#### user\n%s", i+1, r.Model, r.System, r.Prompt)
	}
	testutil.Golden(t).Assert(t, "prompts", []byte(out.String()))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// BenchmarkLevel1 is the harness's own cost of one Level-1 heal, model time
// excluded: prompt, request and reply over loopback to the fake provider,
// patch validation with the grammar, the check against the observation and
// the runner's re-check. Write-back is left out (BenchmarkApply in
// replay/writeback measures it).
func BenchmarkLevel1(b *testing.B) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"data":{"id":"bk_1","status":"confirmed"}}`)
	}))
	defer api.Close()
	replies := make([]llmtest.Reply, 0, 1<<16)
	for range cap(replies) {
		replies = append(replies, reply(l1Good, 812, 64))
	}
	srv := llmtest.New(replies, llmtest.Options{})
	defer srv.Close()
	client, err := llm.NewOpenAI(llm.Config{BaseURL: srv.URL, APIKey: key})
	if err != nil {
		b.Fatal(err)
	}
	skill, _ := grammar.Parse("b.skill.md", []byte(skillFor("/booking", "get", "read")))
	skill.Steps = skill.Steps[:1] // step 2 would need a second service
	opts := replay.Options{Tools: tool.Registry{}, Vars: map[string]string{"base": api.URL},
		Healer: &heal.Ladder{MaxLevel: 1, NewClient: func() (llm.Client, error) { return client, nil }, Model: "m"}}
	httptool.Register(opts.Tools, nil)
	b.ReportAllocs()
	for b.Loop() {
		if res := replay.Run(context.Background(), skill, opts); res.Record.Steps[0].Level != 1 {
			b.Fatalf("not healed: %v", res.Record.Steps[0].Failures)
		}
	}
}

// TestLadderBelowLevelOne: a ladder set to Level 0 escalates nothing and
// never asks for a client.
func TestLadderBelowLevelOne(t *testing.T) {
	l := &heal.Ladder{NewClient: func() (llm.Client, error) {
		t.Error("a Level-0 ladder built a client")
		return nil, nil
	}}
	if h := l.Heal(context.Background(), &replay.Divergence{}); h != nil {
		t.Errorf("Heal = %+v, want nil", h)
	}
}
