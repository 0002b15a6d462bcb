package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/testkit/testutil"
)

// frame encodes JSON-RPC messages with the LSP base protocol's headers.
func frame(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

// TestLSPSessions runs whole sessions through `reelier lsp` on standard
// input and output and checks the exit status and the replies.
func TestLSPSessions(t *testing.T) {
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
		open       = `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/x.skill.md","languageId":"markdown","version":1,"text":"---\nname: x\n---\n"}}}`
		shutdown   = `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`
		exit       = `{"jsonrpc":"2.0","method":"exit"}`
	)
	tests := []struct {
		name  string
		stdin string
		code  int
		want  []string // substrings of stdout
	}{
		{"clean session", frame(initialize, open, shutdown, exit), exitOK, []string{`"name":"reelier"`, `"missing_description"`, `{"jsonrpc":"2.0","result":null,"id":2}`}},
		{"exit without shutdown", frame(initialize, exit), exitFailed, []string{`"textDocumentSync"`}},
		{"stdin closes", frame(initialize), exitOK, []string{`"semanticTokensProvider"`}},
		{"nothing at all", "", exitOK, nil},
		{"malformed message", frame(initialize, `{nope`, shutdown, exit), exitOK, []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`, `{"jsonrpc":"2.0","result":null,"id":2}`}},
		{"broken frame", frame(initialize) + "Content-Length: abc\r\n\r\n" + frame(shutdown, exit), exitUsage, []string{`"textDocumentSync"`}},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := run([]string{"lsp", "--stdio"}, strings.NewReader(tt.stdin), &out, &errb); got != tt.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tt.name, got, tt.code, errb.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: stdout lacks %s:\n%s", tt.name, w, out.String())
			}
		}
	}
}

// lspProcess is `reelier lsp` run as a process, fed one frame at a time.
type lspProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer        // read only after wait
	msgs   chan map[string]any // the messages it writes, in order
}

func startLSP(t *testing.T) *lspProcess {
	t.Helper()
	p := &lspProcess{t: t, cmd: exec.Command(testutil.ReelierBinary(t), "lsp"), msgs: make(chan map[string]any, 100)}
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	go func() {
		defer close(p.msgs)
		r := bufio.NewReader(stdout)
		for {
			var size int
			if _, err := fmt.Fscanf(r, "Content-Length: %d\r\n\r\n", &size); err != nil {
				return
			}
			body := make([]byte, size)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("the server wrote %q: %v", body, err)
				return
			}
			p.msgs <- m
		}
	}()
	return p
}

// send writes raw bytes to the server's standard input.
func (p *lspProcess) send(raw string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, raw); err != nil {
		p.t.Fatalf("writing to reelier lsp: %v", err)
	}
}

// next returns the next message the server writes, skipping
// notifications unless method names one.
func (p *lspProcess) next(method string) map[string]any {
	p.t.Helper()
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatal("reelier lsp stopped writing")
			}
			if m["method"] == nil || m["method"] == method {
				return m
			}
		case <-time.After(30 * time.Second):
			p.t.Fatal("reelier lsp wrote nothing in 30s")
		}
	}
}

// wait closes standard input and returns the exit status.
func (p *lspProcess) wait() int {
	p.t.Helper()
	p.stdin.Close()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

// TestLSPProcessMalformedMessage: the real binary answers a frame whose
// body is not JSON with a parse error (-32700, id null), logs it on
// standard error and to the client, answers the requests that follow and
// exits 0 after shutdown and exit.
func TestLSPProcessMalformedMessage(t *testing.T) {
	p := startLSP(t)
	p.send(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
	if m := p.next(""); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(frame(`{nope`))
	m := p.next("")
	if e, _ := m["error"].(map[string]any); m["id"] != nil || e["code"] != -32700.0 || !strings.Contains(e["message"].(string), "not JSON") {
		t.Errorf("reply to {nope: %v, want a parse error with id null", m)
	}
	if m := p.next("window/logMessage"); !strings.Contains(fmt.Sprint(m["params"]), "malformed message") {
		t.Errorf("logMessage: %v", m)
	}
	p.send(frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.skill.md"},"position":{"line":0,"character":0}}}`))
	if m := p.next(""); m["id"] != 2.0 || m["error"] == nil {
		t.Errorf("hover after the malformed message: %v, want an answer (unknown document)", m)
	}
	p.send(frame(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`))
	if m := p.next(""); m["id"] != 3.0 || m["error"] != nil {
		t.Errorf("shutdown: %v", m)
	}
	if code := p.wait(); code != exitOK {
		t.Errorf("exit %d, want 0 (stderr %q)", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "malformed message at input byte") {
		t.Errorf("stderr does not log the malformed message: %q", p.stderr.String())
	}
}

// TestLSPProcessBrokenFrame: a frame that cannot be resynchronised past
// (a Content-Length that is not a number, the input ending inside a body)
// ends the real binary with a non-zero status and a message naming it.
func TestLSPProcessBrokenFrame(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"bad Content-Length", "Content-Length: abc\r\n\r\n{}", `Content-Length "abc" is not a byte count`},
		{"input ends inside a body", "Content-Length: 100\r\n\r\n{\"jsonrpc\"", "the input ended after 10 of the 100 body bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startLSP(t)
			p.send(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
			if m := p.next(""); m["id"] != 1.0 {
				t.Fatalf("initialize: %v", m)
			}
			p.send(tt.raw)
			code := p.wait()
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(p.stderr.String(), tt.want) || !strings.Contains(p.stderr.String(), "cannot be resynchronised") {
				t.Errorf("stderr %q lacks %q", p.stderr.String(), tt.want)
			}
		})
	}
}

// TestLSPFramesAreValid checks that every reply on stdout is a framed,
// well-formed JSON-RPC message.
func TestLSPFramesAreValid(t *testing.T) {
	var out bytes.Buffer
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`)
	run([]string{"lsp"}, strings.NewReader(in), &out, &bytes.Buffer{})
	rest := out.String()
	for n := 0; rest != ""; n++ {
		var size int
		if _, err := fmt.Sscanf(rest, "Content-Length: %d\r\n\r\n", &size); err != nil {
			t.Fatalf("message %d: bad header in %q", n, rest)
		}
		body := rest[strings.Index(rest, "\r\n\r\n")+4:]
		var msg map[string]any
		if err := json.Unmarshal([]byte(body[:size]), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("message %d: %v %q", n, err, body[:size])
		}
		rest = body[size:]
	}
}

func TestLSPBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if got := run([]string{"lsp", "--debounce", "-1s"}, strings.NewReader(""), &out, &errb); got != exitUsage {
		t.Errorf("exit %d, want %d", got, exitUsage)
	}
	if got := run([]string{"lsp", "extra"}, strings.NewReader(""), &out, &errb); got != exitUsage {
		t.Errorf("exit %d, want %d", got, exitUsage)
	}
}
