package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/testkit/mcptest"
)

// The differential tests again, with an agent on protocol revision
// 2026-07-28: the same sessions through the fast path and through the
// SDK path give the same trace and the same responses, byte for byte
// (but the request states of input-required rounds, which are random).

// modernAgentMeta is the per-request _meta of a 2026-07-28 agent, as the
// go-sdk's client sends it.
func modernAgentMeta(caps string) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps),
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "diff", "version": "1"},
	}
}

// modernCaller makes calls as a 2026-07-28 agent does: each round that
// asks for input is answered (agentAnswers) with the next round.
type modernCaller struct {
	a     *rawAgent
	meta  map[string]any
	resps []json.RawMessage
}

// call makes a call, round after round, and keeps every response.
func (m *modernCaller) call(t *testing.T, id, name string, args any, extra map[string]any) {
	meta := map[string]any{}
	for k, v := range m.meta {
		meta[k] = v
	}
	for k, v := range extra {
		meta[k] = v
	}
	m.a.send(callLine(id, name, args, meta))
	m.rounds(t, id, name, args, meta)
}

// rounds waits for the response to id and answers its input requests
// with further rounds until the call has its result.
func (m *modernCaller) rounds(t *testing.T, id, name string, args any, meta map[string]any) {
	for round := 1; ; round++ {
		resp := m.a.wait(id)
		m.resps = append(m.resps, resp)
		var r struct {
			Result struct {
				ResultType    string
				InputRequests map[string]struct{ Method string }
				RequestState  string
			}
		}
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatalf("response %s: %v", resp, err)
		}
		if r.Result.ResultType != "input_required" {
			return
		}
		answers := map[string]json.RawMessage{}
		for k, ir := range r.Result.InputRequests {
			answers[k] = json.RawMessage(agentAnswers[ir.Method])
		}
		id = fmt.Sprintf(`"%s-r%d"`, strings.Trim(id, `"`), round)
		params := map[string]any{"name": name, "arguments": args, "_meta": meta, "inputResponses": answers, "requestState": r.Result.RequestState}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call", "params": params})
		m.a.send(string(b))
	}
}

// requestState matches the random request state of a response.
var requestState = regexp.MustCompile(`"requestState":"reelier-[0-9a-f]+"`)

// sameResponses compares the responses byte for byte, but their request
// states; skip says which to leave out.
func sameResponses(t *testing.T, slow, fast []json.RawMessage, skip func(int) bool) {
	t.Helper()
	if len(slow) != len(fast) {
		t.Fatalf("%d responses, want %d:\nSDK path:  %s\nfast path: %s", len(fast), len(slow), slow, fast)
	}
	for k := range slow {
		if skip(k) {
			continue
		}
		a := requestState.ReplaceAllString(string(slow[k]), `"requestState":"…"`)
		b := requestState.ReplaceAllString(string(fast[k]), `"requestState":"…"`)
		if a != b {
			t.Errorf("response %d differs:\nSDK path:  %s\nfast path: %s", k, short(a), short(b))
		}
	}
}

func short(s string) string {
	return strings.ReplaceAll(s, strings.Repeat("large result ", 100), "…")
}

// cancelMidCall sends line (a call), and once it has begun the
// cancellations; it waits for the call to end (the SDK path records a
// cancelled first round after it has answered it) and returns the
// response to id.
func cancelMidCall(p *Proxy, a *rawAgent, line, id string, cancels ...string) json.RawMessage {
	begun := make(chan struct{}, 1)
	ended := make(chan struct{}, 1)
	p.relay.mu.Lock()
	p.relay.began = func() { begun <- struct{}{} }
	p.relay.mu.Unlock()
	a.send(line)
	<-begun
	p.relay.mu.Lock()
	p.relay.began = nil
	p.relay.ended = func() { ended <- struct{}{} }
	p.relay.mu.Unlock()
	for _, c := range cancels {
		a.send(c)
	}
	resp := a.wait(id)
	<-ended
	p.relay.mu.Lock()
	p.relay.ended = nil
	p.relay.mu.Unlock()
	return resp
}

// modernDiffSession is diffSession with an agent on 2026-07-28.
func modernDiffSession(t *testing.T, noFast bool) (string, []json.RawMessage, int64) {
	p, dir := startDiffProxy(t, fmt.Sprintf("'%s' -name a", os.Args[0]), 5*time.Second, noFast) // the SDK path under -race takes a while over the large result
	defer p.Close()
	a, served := newRawAgent(t, p)
	m := &modernCaller{a: a, meta: modernAgentMeta(`{"roots":{"listChanged":true}}`)}
	discover, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": map[string]any{"_meta": m.meta}})
	a.send(string(discover))
	a.wait("0")
	m.call(t, "1", "reelier_start_recording", map[string]any{"name": "diff"}, nil)
	m.call(t, "2", "echo", map[string]any{"text": "hello <b>&</b>"}, nil)
	m.call(t, `"s-3"`, "fail", map[string]any{}, nil)
	m.call(t, "4", "echo", map[string]any{"text": strings.Repeat("large result ", 40000)}, nil)
	m.call(t, "5", "leak", map[string]any{}, nil)
	m.call(t, "6", "echo", map[string]any{"text": "token " + mcptest.Secret}, map[string]any{"claudecode/toolUseId": "toolu_01", "x": 1.5})
	m.call(t, "7", "add", map[string]any{"a": 1, "b": 2.5}, nil)
	// A cancellation: the call is cancelled once it has gone downstream.
	m.resps = append(m.resps, cancelMidCall(p, a, callLine("8", "slow", map[string]any{"ms": 20000}, m.meta), "8",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8,"reason":"the user gave up"}}`))
	// A timeout: the call limit cuts it off.
	m.call(t, "9", "slow", map[string]any{"ms": 20000}, nil)
	m.call(t, "10", "echo", map[string]any{"text": "after"}, nil)
	// Left to the SDK both times: a log level, a _meta the SDK refuses.
	m.call(t, "11", "echo", map[string]any{"text": "level"}, map[string]any{"io.modelcontextprotocol/logLevel": "info"})
	m.call(t, "12", "echo", map[string]any{"text": "no caps"}, map[string]any{"io.modelcontextprotocol/clientCapabilities": 5})
	m.call(t, "13", "echo", map[string]any{"text": "old"}, map[string]any{"io.modelcontextprotocol/protocolVersion": "2025-11-25"})
	// A server that exits mid-call, then a call to it.
	m.call(t, "14", "crash", map[string]any{}, nil)
	m.call(t, "15", "echo", map[string]any{"text": "gone"}, nil)
	m.call(t, "16", "reelier_stop_recording", map[string]any{}, nil)
	a.in.Close()
	<-served
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("trace files: %v %v", files, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	return normalizeTrace(t, data), m.resps, p.fastCalls.Load()
}

// TestFastPathRecordsTheSameModern is TestFastPathRecordsTheSame with an
// agent on 2026-07-28.
func TestFastPathRecordsTheSameModern(t *testing.T) {
	slow, slowResps, none := modernDiffSession(t, true)
	fast, fastResps, taken := modernDiffSession(t, false)
	if none != 0 {
		t.Errorf("with NoFastPath, %d calls took the fast path", none)
	}
	// Every call to the downstream took the fast path, but 11 to 13.
	if taken != 11 {
		t.Errorf("%d calls took the fast path, want 11", taken)
	}
	if slow != fast {
		t.Errorf("the traces differ:\n--- SDK path\n%s\n--- fast path\n%s", short(slow), short(fast))
	}
	if strings.Contains(fast, mcptest.Secret) {
		t.Errorf("the secret is in the trace:\n%s", fast)
	}
	for _, want := range []string{`"cancelled":true`, "5s call limit", "it exited (exit status 3)", `"toolUseId":"toolu_01"`, "large result large result", `"isError":true`} {
		if !strings.Contains(fast, want) {
			t.Errorf("the trace lacks %q:\n%s", want, short(fast))
		}
	}
	for _, want := range []string{`"resultType":"complete"`, `"io.modelcontextprotocol/serverInfo"`, `"message":"context canceled"`, `missing or invalid _meta field`} {
		if !strings.Contains(string(fastResps[len(fastResps)/2])+strings.Join(func() []string {
			var s []string
			for _, r := range fastResps {
				s = append(s, string(r))
			}
			return s
		}(), "\n"), want) {
			t.Errorf("no response has %s", want)
		}
	}
	sameResponses(t, slowResps, fastResps, func(k int) bool { return k == 0 || k == len(slowResps)-1 })
}

// modernRelaySession is relaySession with an agent on 2026-07-28: the
// downstream's requests come to it as input requests, a round at a time.
func modernRelaySession(t *testing.T, noFast bool, tee string) (string, []json.RawMessage, int64, string) {
	p, dir := startDiffProxy(t, fmt.Sprintf("'%s' %s %s", os.Args[0], teeRelayArg, tee), 0, noFast)
	defer p.Close()
	a, served := newRawAgent(t, p)
	m := &modernCaller{a: a, meta: modernAgentMeta(`{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`)}
	discover, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": map[string]any{"_meta": m.meta}})
	a.send(string(discover))
	a.wait("0")
	m.call(t, "1", "reelier_start_recording", map[string]any{"name": "relay"}, nil)
	m.call(t, "2", "ask_model", map[string]any{"prompt": "hi"}, nil)
	m.call(t, "3", "ask_person", map[string]any{}, nil)
	m.call(t, "4", "list_roots", map[string]any{}, nil)
	m.call(t, "5", "chatter", map[string]any{}, nil)
	// A cancelled first round.
	m.resps = append(m.resps, cancelMidCall(p, a, callLine("6", "block", map[string]any{}, m.meta), "6",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"6"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`))
	m.call(t, "7", "chatter", map[string]any{}, nil)
	// A cancelled second round: the first asks the agent, the second
	// waits for the downstream and is cancelled, and the call with it.
	a.send(callLine("8", "ask_then_block", map[string]any{}, m.meta))
	first := a.wait("8")
	m.resps = append(m.resps, first)
	var r struct{ Result struct{ RequestState string } }
	json.Unmarshal(first, &r)
	second, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "8b", "method": "tools/call", "params": map[string]any{
		"name": "ask_then_block", "arguments": map[string]any{}, "_meta": m.meta, "requestState": r.Result.RequestState,
		"inputResponses": map[string]any{"r1": json.RawMessage(agentAnswers["sampling/createMessage"])},
	}})
	kept := make(chan struct{}, 1)
	ended := make(chan struct{}, 1)
	p.relay.mu.Lock()
	p.relay.kept = func() { kept <- struct{}{} }
	p.relay.ended = func() { ended <- struct{}{} }
	p.relay.mu.Unlock()
	a.send(string(second))
	<-kept // the downstream has its answer, and waits
	a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"8b"}}`)
	<-ended
	m.resps = append(m.resps, a.wait(`"8b"`))
	p.relay.mu.Lock()
	p.relay.kept, p.relay.ended = nil, nil
	p.relay.mu.Unlock()
	m.call(t, "9", "reelier_stop_recording", map[string]any{}, nil)
	a.in.Close()
	<-served
	p.Close()
	seen, err := os.ReadFile(tee)
	if err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("trace files: %v %v", files, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	return normalizeTrace(t, data), m.resps, p.fastCalls.Load(), string(seen)
}

// TestFastPathRelaysTheSameModern is TestFastPathRelaysTheSame with an
// agent on 2026-07-28: calls whose downstream asks the agent are handed
// to the rounds machinery mid-call.
func TestFastPathRelaysTheSameModern(t *testing.T) {
	tee := filepath.Join(t.TempDir(), "stdin")
	slow, slowResps, none, _ := modernRelaySession(t, true, tee)
	fast, fastResps, taken, stdin := modernRelaySession(t, false, tee)
	if none != 0 || taken != 7 {
		t.Errorf("%d and %d calls took the fast path, want 0 and 7", none, taken)
	}
	if slow != fast {
		t.Errorf("the traces differ:\n--- SDK path\n%s\n--- fast path\n%s", slow, fast)
	}
	for _, want := range []string{`"method":"sampling/createMessage"`, `"method":"elicitation/create"`, `"method":"roots/list"`, `"cancelled":true`} {
		if !strings.Contains(fast, want) {
			t.Errorf("the trace lacks %s:\n%s", want, fast)
		}
	}
	all := strings.Join(func() []string {
		var s []string
		for _, r := range fastResps {
			s = append(s, string(r))
		}
		return s
	}(), "\n")
	for _, want := range []string{`"resultType":"input_required"`, "model m1 said: hello", "action=accept name=Ann", "roots: file:///tmp/r", `"message":"context canceled"`} {
		if !strings.Contains(all, want) {
			t.Errorf("no response has %s:\n%s", want, all)
		}
	}
	if n := strings.Count(fast, `"cancelled":true`); n != 2 {
		t.Errorf("%d calls recorded cancelled, want 2 (block, ask_then_block):\n%s", n, fast)
	}
	if n := strings.Count(all, `"message":"context canceled"`); n != 2 {
		t.Errorf("%d rounds answered cancelled, want 2:\n%s", n, all)
	}
	sameResponses(t, slowResps, fastResps, func(k int) bool { return k == 0 || k == len(slowResps)-1 })
	if testing.Verbose() {
		t.Logf("stdin:\n%s", stdin)
	}
	if !strings.Contains(stdin, `"method":"notifications/cancelled"`) {
		t.Errorf("the server's stdin has no cancellation:\n%s", stdin)
	}
}
