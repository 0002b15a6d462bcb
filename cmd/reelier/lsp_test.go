package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
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
