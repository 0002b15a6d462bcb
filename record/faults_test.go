package record_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/trace"
)

// The fault tests put a real `reelier mcp` process between a real client
// (the go-sdk's, on the process's stdio) and real downstreams that
// misbehave: our Go test server's slow tool for a call that never
// returns, and a small node server (faultyServer) that prints stray
// lines, answers with a malformed or very large response, or never
// answers. The test holds the proxy's stdin too, to write raw lines
// between the client's messages.

// faultyServer is an MCP server speaking raw JSON-RPC over stdio, with a
// fault for each tool.
const faultyServer = `
const readline = require('readline');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
process.stdout.write('faulty: starting up\n'); // before the handshake
const obj = (props) => ({type: 'object', properties: props || {}});
const tools = [
  {name: 'echo', description: 'Echo the text.', inputSchema: obj({text: {type: 'string'}})},
  {name: 'stray', description: 'Print stray lines on stdout, then answer.', inputSchema: obj()},
  {name: 'big', description: 'Answer with a text of mib MiB, the id last.', inputSchema: obj({mib: {type: 'number'}})},
  {name: 'badreply', description: 'Answer with a malformed response.', inputSchema: obj()},
  {name: 'hang', description: 'Never answer.', inputSchema: obj()},
  {name: 'ticks', description: 'Report progress n times, ms apart, then answer.', inputSchema: obj({n: {type: 'number'}, ms: {type: 'number'}})},
];
const text = (t) => ({content: [{type: 'text', text: t}]});
const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'notifications/cancelled') {
    process.stderr.write('cancelled request ' + m.params.requestId + '\n');
    return;
  }
  if (m.id === undefined) return;
  const reply = (result) => send({jsonrpc: '2.0', result, id: m.id});
  switch (m.method) {
  case 'initialize':
    return reply({protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'faulty', version: '1'}});
  case 'tools/list':
    return reply({tools});
  case 'ping':
    return reply({});
  case 'tools/call': {
    const a = m.params.arguments || {};
    switch (m.params.name) {
    case 'echo': return reply(text('echo: ' + a.text));
    case 'stray':
      process.stdout.write('hello from print()\n');
      process.stdout.write('{"debug":"a JSON line that is not JSON-RPC"}\n');
      return reply(text('answered after stray lines'));
    case 'big': return reply(text('x'.repeat(a.mib * 1048576)));
    case 'badreply': return send({jsonrpc: '1.0', id: m.id, result: text('wrong version')});
    case 'hang': return;
    case 'ticks': {
      const token = m.params._meta && m.params._meta.progressToken;
      let k = 0;
      const tick = () => {
        if (k === a.n) return reply(text('ticked ' + k));
        k++;
        if (token !== undefined) send({jsonrpc: '2.0', method: 'notifications/progress', params: {progressToken: token, progress: k, total: a.n}});
        setTimeout(tick, a.ms);
      };
      return tick();
    }
    }
    return send({jsonrpc: '2.0', id: m.id, error: {code: -32602, message: 'no tool ' + m.params.name}});
  }
  }
  send({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'no method ' + m.method}});
});
`

// faulty writes faultyServer to a temporary folder and returns the --wrap
// command that runs it, skipping the test without node.
func faulty(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	path := filepath.Join(t.TempDir(), "faulty.js")
	if err := os.WriteFile(path, []byte(faultyServer), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("node '%s'", path)
}

// rawProxy is a `reelier mcp` process with a go-sdk client session on its
// stdio and the test's own access to both ends: raw lines written to its
// stdin between the client's messages, and the replies to them (an id
// that is null or starts with "raw-") taken out of its stdout before the
// client reads it.
type rawProxy struct {
	session *mcp.ClientSession
	cmd     *exec.Cmd
	stdin   *lockedPipe
	replies chan rawReply
	stderr  *os.File
	dir     string
	exited  chan error
}

// rawReply is a JSON-RPC error response the proxy wrote for a raw line,
// or a batch response (Batch).
type rawReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Batch []json.RawMessage `json:"-"`
}

// lockedPipe is the proxy's stdin, written to by the client and by the
// test, one whole message a write.
type lockedPipe struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedPipe) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedPipe) Close() error { return l.w.Close() }

// startRaw starts `reelier mcp --trace-dir DIR args…` and connects the
// client with the SDK's newest protocol revision. The client reads
// messages of any size.
func startRaw(t *testing.T, args ...string) *rawProxy {
	t.Helper()
	return startRawVersion(t, "", args...)
}

// startRawVersion is startRaw with the given protocol revision.
func startRawVersion(t *testing.T, version string, args ...string) *rawProxy {
	t.Helper()
	p := &rawProxy{dir: t.TempDir(), replies: make(chan rawReply, 16), exited: make(chan error, 1)}
	var err error
	if p.stderr, err = os.Create(filepath.Join(t.TempDir(), "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stderr.Close() })
	p.cmd = exec.Command(reelierBin(t), append([]string{"mcp", "--trace-dir", p.dir}, args...)...)
	p.cmd.Stderr = p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stdin = &lockedPipe{w: stdin}
	toClient, fromProxy := io.Pipe()
	go func() {
		// Split the proxy's output: replies to raw lines here, the rest to
		// the client.
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 && line[0] == '[' {
				var reply rawReply
				json.Unmarshal(line, &reply.Batch)
				p.replies <- reply
				continue
			}
			if len(line) > 0 {
				var head struct {
					ID json.RawMessage `json:"id"`
				}
				if json.Unmarshal(line, &head) == nil && (string(head.ID) == "null" || bytes.HasPrefix(head.ID, []byte(`"raw-`))) {
					var reply rawReply
					json.Unmarshal(line, &reply)
					p.replies <- reply
					continue
				}
				fromProxy.Write(line)
			}
			if err != nil {
				fromProxy.CloseWithError(err)
				p.exited <- p.cmd.Wait()
				return
			}
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "fault-agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	p.session, err = client.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: p.stdin, MaxLineLength: -1}, opts)
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v\nstderr:\n%s", err, p.errText(t))
	}
	t.Cleanup(func() {
		p.session.Close()
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
		}
	})
	return p
}

// write writes raw bytes to the proxy's stdin.
func (p *rawProxy) write(t *testing.T, raw []byte) {
	t.Helper()
	if _, err := p.stdin.Write(raw); err != nil {
		t.Fatal(err)
	}
}

// reply returns the proxy's reply to a raw line.
func (p *rawProxy) reply(t *testing.T) rawReply {
	t.Helper()
	select {
	case r := <-p.replies:
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("no reply to a raw line within a minute\nstderr:\n%s", p.errText(t))
		return rawReply{}
	}
}

// close ends the session and returns the proxy's exit.
func (p *rawProxy) close(t *testing.T) error {
	t.Helper()
	p.session.Close()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("reelier mcp did not exit within a minute of the client leaving")
		return nil
	}
}

func (p *rawProxy) errText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(p.stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call calls a tool and returns its result; a protocol error fails the
// test.
func (p *rawProxy) call(t *testing.T, name string, args any) (string, bool) {
	t.Helper()
	return callSession(t, p.session, name, args, nil)
}

// traceCalls reads the trace at path with the trace reader and returns,
// for each call in order, its tool and whether its result was ok, and the
// body of each result by call.
func traceCalls(t *testing.T, path string) ([]string, []string) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatalf("the trace does not read: %v", err)
	}
	tools := map[int]string{}
	var calls, bodies []string
	for _, rec := range tr.Records {
		switch r := rec.(type) {
		case *trace.Call:
			tools[r.I] = r.Tool
		case *trace.Result:
			status := "ok"
			if !r.OK {
				status = "failed"
			}
			calls = append(calls, tools[r.I]+" "+status)
			bodies = append(bodies, string(r.Body))
		}
	}
	return calls, bodies
}

func sameList(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

// TestFaultHungCall: a call the downstream never answers is answered at
// the limit with an isError result naming the downstream and the limit,
// recorded as failed; the downstream takes the next call.
func TestFaultHungCall(t *testing.T) {
	p := startRaw(t, "--call-timeout", "2s", "--wrap", server("a"))
	path := startRecordingOn(t, p.session, "hung")
	t0 := time.Now()
	text, isErr := p.call(t, "slow", map[string]any{"ms": 10 * 60 * 1000})
	elapsed := time.Since(t0)
	want := "reelier: downstream 0 (" + server("a") + ") failed: no answer within the 2s call limit"
	if !isErr || text != want {
		t.Errorf("hung call: %q (isError %v); want %q", text, isErr, want)
	}
	if elapsed < 2*time.Second || elapsed > 30*time.Second {
		t.Errorf("the hung call was answered after %v; want at its 2s limit", elapsed)
	}
	if text, isErr := p.call(t, "echo", map[string]any{"text": "after"}); isErr || text != "a: after" {
		t.Errorf("the next call: %q (isError %v)", text, isErr)
	}
	p.call(t, "reelier_stop_recording", nil)
	if err := p.close(t); err != nil {
		t.Errorf("reelier mcp exited with %v\nstderr:\n%s", err, p.errText(t))
	}
	calls, bodies := traceCalls(t, path)
	if want := []string{"slow failed", "echo ok"}; !sameList(calls, want) {
		t.Fatalf("trace calls %q; want %q", calls, want)
	}
	if !strings.Contains(bodies[0], "no answer within the 2s call limit") {
		t.Errorf("the hung call's recorded result: %s", bodies[0])
	}
}

// TestFaultProgressKeepsCallAlive: a call that reports progress gets a
// fresh limit with each notification; the same call without a progress
// token is cut off at the limit.
func TestFaultProgressKeepsCallAlive(t *testing.T) {
	wrap := faulty(t)
	p := startRaw(t, "--call-timeout", "1s", "--wrap", wrap)
	args := map[string]any{"n": 6, "ms": 300} // 1.8 s in all, 0.3 s apart
	res, err := p.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "ticks", Arguments: args, Meta: mcp.Meta{"progressToken": "t-1"}})
	if err != nil || res.IsError || resultText(res) != "ticked 6" {
		t.Errorf("call with progress: %v %q (isError %v)", err, resultText(res), res != nil && res.IsError)
	}
	text, isErr := p.call(t, "ticks", args)
	if !isErr || !strings.Contains(text, "no answer within the 1s call limit") {
		t.Errorf("call without progress: %q (isError %v); want the limit", text, isErr)
	}
}

// TestFaultStrayStdout: lines a downstream prints on stdout that are not
// JSON-RPC — before the handshake and during a call — are shown on
// stderr under the server's name and skipped; a malformed response fails
// its call at once; the server stays in use and the trace is whole.
func TestFaultStrayStdout(t *testing.T) {
	wrap := faulty(t)
	p := startRaw(t, "--wrap", wrap)
	path := startRecordingOn(t, p.session, "stray")
	if text, isErr := p.call(t, "stray", nil); isErr || text != "answered after stray lines" {
		t.Errorf("stray: %q (isError %v)", text, isErr)
	}
	if text, isErr := p.call(t, "echo", map[string]any{"text": "one"}); isErr || text != "echo: one" {
		t.Errorf("echo after stray lines: %q (isError %v)", text, isErr)
	}
	text, isErr := p.call(t, "badreply", nil)
	if want := `reelier: downstream 0 (` + wrap + `) failed: calling "tools/call": the server's response is not a JSON-RPC message: invalid message version tag "1.0"; expected "2.0"`; !isErr || text != want {
		t.Errorf("badreply: %q (isError %v); want %q", text, isErr, want)
	}
	if text, isErr := p.call(t, "echo", map[string]any{"text": "two"}); isErr || text != "echo: two" {
		t.Errorf("echo after a malformed response: %q (isError %v)", text, isErr)
	}
	p.call(t, "reelier_stop_recording", nil)
	if err := p.close(t); err != nil {
		t.Errorf("reelier mcp exited with %v", err)
	}
	stderr := p.errText(t)
	for _, want := range []string{
		"[faulty] stdout, not JSON-RPC, skipped: faulty: starting up\n",
		"[faulty] stdout, not JSON-RPC, skipped: hello from print()\n",
		`[faulty] stdout, not a JSON-RPC message (invalid message version tag ""; expected "2.0"), skipped: {"debug":"a JSON line that is not JSON-RPC"}` + "\n",
		`[faulty] stdout, not a JSON-RPC message (invalid message version tag "1.0"; expected "2.0"), skipped: {"jsonrpc":"1.0","id":`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q\nstderr:\n%s", want, stderr)
		}
	}
	calls, _ := traceCalls(t, path)
	if want := []string{"stray ok", "echo ok", "badreply failed", "echo ok"}; !sameList(calls, want) {
		t.Errorf("trace calls %q; want %q", calls, want)
	}
}

// TestFaultLargeMessages: with the default limit (64 MiB), a 20 MiB result
// reaches the agent and the trace, and a 20 MiB argument reaches the
// server; a request over the limit from the agent gets a JSON-RPC error
// with its id. With a lower limit, the same result is an isError result
// naming its size and the limit, and the server stays in use.
func TestFaultLargeMessages(t *testing.T) {
	wrap := faulty(t)
	const mib = 1 << 20
	t.Run("default limit", func(t *testing.T) {
		p := startRaw(t, "--wrap", wrap)
		path := startRecordingOn(t, p.session, "large")
		text, isErr := p.call(t, "big", map[string]any{"mib": 20})
		if isErr || len(text) != 20*mib || strings.Trim(text, "x") != "" {
			t.Errorf("big: %d bytes (isError %v): %.200q", len(text), isErr, text)
		}
		arg := strings.Repeat("y", 20*mib)
		if text, isErr := p.call(t, "echo", map[string]any{"text": arg}); isErr || text != "echo: "+arg {
			t.Errorf("echo of 20 MiB: %d bytes (isError %v): %.200q", len(text), isErr, text)
		}
		// 65 MiB from the agent: over the limit, answered by id.
		huge := []byte(`{"jsonrpc":"2.0","id":"raw-huge","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("z", 65*mib) + `"}}}` + "\n")
		p.write(t, huge)
		r := p.reply(t)
		if string(r.ID) != `"raw-huge"` || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "over the proxy's 64 MiB limit") {
			t.Errorf("reply to a 65 MiB request: %s %+v", r.ID, r.Error)
		}
		if text, isErr := p.call(t, "echo", map[string]any{"text": "after"}); isErr || text != "echo: after" {
			t.Errorf("echo after: %q (isError %v)", text, isErr)
		}
		p.call(t, "reelier_stop_recording", nil)
		if err := p.close(t); err != nil {
			t.Errorf("reelier mcp exited with %v", err)
		}
		calls, bodies := traceCalls(t, path)
		if want := []string{"big ok", "echo ok", "echo ok"}; !sameList(calls, want) {
			t.Fatalf("trace calls %q; want %q", calls, want)
		}
		if len(bodies[0]) < 20*mib {
			t.Errorf("the big result is recorded in %d bytes", len(bodies[0]))
		}
		if stderr := p.errText(t); !strings.Contains(stderr, "[reelier] a message from the client was skipped: the message is 65.0 MiB") {
			t.Errorf("stderr does not report the 65 MiB message:\n%.2000s", stderr)
		}
	})
	t.Run("lower limit", func(t *testing.T) {
		p := startRaw(t, "--max-message", "8MiB", "--wrap", wrap)
		path := startRecordingOn(t, p.session, "limited")
		text, isErr := p.call(t, "big", map[string]any{"mib": 20})
		// The response is the 20 MiB text and some 70 bytes of JSON.
		want := regexp.MustCompile(`^reelier: downstream 0 \(` + regexp.QuoteMeta(wrap) + `\) failed: calling "tools/call": the server's response is 20\.0 MiB \(209715\d\d bytes\), over the 8 MiB limit on a message$`)
		if !isErr || !want.MatchString(text) {
			t.Errorf("big over the limit: %.300q (isError %v); want %s", text, isErr, want)
		}
		if text, isErr := p.call(t, "big", map[string]any{"mib": 7}); isErr || len(text) != 7*mib {
			t.Errorf("big under the limit: %d bytes (isError %v)", len(text), isErr)
		}
		p.call(t, "reelier_stop_recording", nil)
		if err := p.close(t); err != nil {
			t.Errorf("reelier mcp exited with %v", err)
		}
		calls, bodies := traceCalls(t, path)
		if want := []string{"big failed", "big ok"}; !sameList(calls, want) {
			t.Fatalf("trace calls %q; want %q", calls, want)
		}
		if !strings.Contains(bodies[0], "over the 8 MiB limit on a message") {
			t.Errorf("the failed call's recorded result: %.300s", bodies[0])
		}
		if stderr := p.errText(t); !regexp.MustCompile(`\[faulty\] stdout: a message of 20\.0 MiB \(209715\d\d bytes\), over the 8 MiB limit, was skipped: \{"jsonrpc":"2\.0","result":\{"content":\[\{"type":"text","text":"x+…\n`).MatchString(stderr) {
			t.Errorf("stderr does not report the skipped response:\n%.2000s", stderr)
		}
	})
}

// TestFaultAgentGarbage: lines from the agent that are not JSON, not
// JSON-RPC, or over the limit each get a JSON-RPC error — parse error
// -32700 with id null for garbage, -32600 with the request's id when it
// has one — and the session carries on: calls in between still work and
// are recorded, and the proxy exits 0 with a valid trace.
func TestFaultAgentGarbage(t *testing.T) {
	p := startRaw(t, "--max-message", "1MiB", "--wrap", server("a"))
	path := startRecordingOn(t, p.session, "garbage")
	echo := func(s string) {
		t.Helper()
		if text, isErr := p.call(t, "echo", map[string]any{"text": s}); isErr || text != "a: "+s {
			t.Errorf("echo %s: %q (isError %v)", s, text, isErr)
		}
	}
	echo("first")
	big := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("z", 2<<20) + `"}},"id":"raw-big"}` + "\n"
	tests := []struct {
		name, line string
		id         string
		code       int
		message    string
	}{
		{"garbage", "this is not JSON\n", "null", -32700, "parse error: the line is not JSON"},
		{"binary", "\x00\xff\xfe{{{\r\n", "null", -32700, "parse error: the line is not JSON"},
		{"not JSON-RPC", `{"hello":"world"}` + "\n", "null", -32600, `invalid request: invalid message version tag ""; expected "2.0"`},
		{"bad id", `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call"}` + "\n", "null", -32600, "invalid request: invalid ID type map[string]interface {}"},
		{"wrong version with an id", `{"jsonrpc":"1.0","id":"raw-v","method":"tools/list"}` + "\n", `"raw-v"`, -32600, `invalid request: invalid message version tag "1.0"; expected "2.0"`},
		{"empty batch", "[]\n", "null", -32600, "invalid request: an empty batch"},
		{"over the limit", big, `"raw-big"`, -32600, fmt.Sprintf("the message is 2.0 MiB (%d bytes), over the proxy's 1 MiB limit on a message (reelier mcp --max-message)", len(big)-1)},
		{"garbage over the limit", strings.Repeat("#", 3<<20) + "\n", "null", -32600, "the message is 3 MiB, over the proxy's 1 MiB limit on a message (reelier mcp --max-message)"},
	}
	for _, tt := range tests {
		p.write(t, []byte(tt.line))
		r := p.reply(t)
		if string(r.ID) != tt.id || r.Error == nil || r.Error.Code != tt.code || r.Error.Message != tt.message {
			t.Errorf("%s: reply id %s, error %+v; want id %s, %d %q", tt.name, r.ID, r.Error, tt.id, tt.code, tt.message)
		}
		echo("after " + tt.name)
	}
	// A notification over the limit gets no answer (JSON-RPC answers no
	// notification); the next reply is to the garbage after it.
	p.write(t, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"`+strings.Repeat("n", 2<<20)+`"}}`+"\n"+"garbage\n"))
	if r := p.reply(t); r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("after an oversize notification: reply %s %+v; want the garbage line's", r.ID, r.Error)
	}
	echo("last")
	text, _ := p.call(t, "reelier_stop_recording", nil)
	if !strings.Contains(text, "holds 10 calls") {
		t.Errorf("stop: %q", text)
	}
	if err := p.close(t); err != nil {
		t.Errorf("reelier mcp exited with %v\nstderr:\n%s", err, p.errText(t))
	}
	calls, _ := traceCalls(t, path)
	if len(calls) != 10 || strings.Count(strings.Join(calls, "\n"), "echo ok") != 10 {
		t.Errorf("trace calls %q; want 10 echo calls, ok", calls)
	}
	stderr := p.errText(t)
	for _, want := range []string{
		"[reelier] a line from the client that is not JSON was skipped (16 bytes): this is not JSON\n",
		`[reelier] a line from the client that is not JSON was skipped (6 bytes): \x00\xff\xfe{{{` + "\n",
		`[reelier] a line from the client that is not a JSON-RPC message was skipped (invalid message version tag ""; expected "2.0"): {"hello":"world"}` + "\n",
		fmt.Sprintf("[reelier] a message from the client was skipped: the message is 2.0 MiB (%d bytes), over the proxy's 1 MiB limit", len(big)-1),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q\nstderr:\n%.3000s", want, stderr)
		}
	}
}

// TestFaultAgentBatch: a batch from an agent that negotiated a revision
// without batches (2025-06-18 and later; at 2025-11-25 the SDK ends the
// session for it) gets a JSON-RPC error and the session carries on; one
// that negotiated an older revision gets its batch answered.
func TestFaultAgentBatch(t *testing.T) {
	batch := `[{"jsonrpc":"2.0","id":"raw-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"b1"}}},` +
		`{"jsonrpc":"2.0","id":"raw-2","method":"tools/call","params":{"name":"echo","arguments":{"text":"b2"}}}]` + "\n"
	for _, version := range []string{"", "2025-11-25"} {
		name := version
		if name == "" {
			name = "newest"
		}
		t.Run(name, func(t *testing.T) {
			p := startRawVersion(t, version, "--wrap", server("a"))
			p.write(t, []byte(batch))
			r := p.reply(t)
			if string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32600 || r.Error.Message != "invalid request: a batch, which the protocol revision in use does not allow" {
				t.Errorf("reply to a batch: %s %+v %s", r.ID, r.Error, r.Batch)
			}
			if text, isErr := p.call(t, "echo", map[string]any{"text": "after"}); isErr || text != "a: after" {
				t.Errorf("echo after the batch: %q (isError %v)", text, isErr)
			}
			if err := p.close(t); err != nil {
				t.Errorf("reelier mcp exited with %v", err)
			}
		})
	}
	t.Run("2025-03-26", func(t *testing.T) {
		p := startRawVersion(t, "2025-03-26", "--wrap", server("a"))
		p.write(t, []byte(batch))
		r := p.reply(t)
		both := fmt.Sprintf("%s", r.Batch)
		if len(r.Batch) != 2 || !strings.Contains(both, `"a: b1"`) || !strings.Contains(both, `"a: b2"`) {
			t.Errorf("reply to a batch: %s %+v %s", r.ID, r.Error, r.Batch)
		}
		if text, isErr := p.call(t, "echo", map[string]any{"text": "after"}); isErr || text != "a: after" {
			t.Errorf("echo after the batch: %q (isError %v)", text, isErr)
		}
		if err := p.close(t); err != nil {
			t.Errorf("reelier mcp exited with %v", err)
		}
	})
}

// startRecordingOn starts a recording on a session and returns the trace
// path.
func startRecordingOn(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	text, isErr := callSession(t, cs, "reelier_start_recording", map[string]any{"name": name}, nil)
	if isErr || !strings.HasPrefix(text, "Recording to ") {
		t.Fatalf("start: %q (isError %v)", text, isErr)
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(text, "Recording to "), ". Call ")
	return path
}
