package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStdioMalformedFrames sends, on the stdio transport, each frame the
// SDK cannot read followed by a good request, and wants an answer to both:
// the JSON-RPC error the specification names for the bad frame, and the
// ping's result. One bad frame must not end the session.
func TestStdioMalformedFrames(t *testing.T) {
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	deepObj := `{"jsonrpc":"2.0","id":9,"method":"ping","params":` + strings.Repeat(`{"a":`, 1500) + "1" + strings.Repeat("}", 1500) + "}"
	tests := []struct {
		name  string
		frame string
		code  int
		id    string // the id the error answers with, as JSON
	}{
		{"not JSON", `this is not json`, -32700, "null"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":3,"method":`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, "null"},
		{"huge number id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, "null"},
		{"nested array", deep, -32600, "null"},
		{"nested params", deepObj, -32600, "9"},
		{"a bare number", `42`, -32600, "null"},
		{"no jsonrpc tag", `{"id":5,"method":"ping"}`, -32600, "5"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			send, recv := stdioSession(t)
			send(tc.frame)
			m := recv()
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != tc.code {
				t.Errorf("bad frame: answer %s, want error code %d", m["error"], tc.code)
			}
			if got := string(m["id"]); got != tc.id {
				t.Errorf("bad frame: id %s, want %s", got, tc.id)
			}
			id := 100 + i
			send(`{"jsonrpc":"2.0","id":` + jsonInt(id) + `,"method":"ping"}`)
			m = recv()
			if string(m["id"]) != jsonInt(id) || m["result"] == nil {
				t.Errorf("ping after the bad frame: %v", m)
			}
		})
	}
}

// stdioSession starts a server on the stdio transport over pipes,
// initializes a session and returns a function that sends a line and one
// that reads an answer.
func stdioSession(t *testing.T) (send func(string), recv func() map[string]json.RawMessage) {
	srv, err := New(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(t.Context(), srv.StdioTransport(inR, outW, 0))
		// The session is over: the client's reads and writes end too.
		outW.Close()
		inR.CloseWithError(io.ErrClosedPipe)
		done <- err
	}()
	t.Cleanup(func() { inW.Close(); <-done })
	answers := make(chan []byte)
	go func() {
		lines := bufio.NewScanner(outR)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			answers <- slices.Clone(lines.Bytes())
		}
		close(answers)
	}()
	t.Cleanup(func() { outR.Close() })
	send = func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write %.40q: %v (the server is gone)", s, err)
		}
	}
	recv = func() map[string]json.RawMessage {
		t.Helper()
		var line []byte
		select {
		case l, ok := <-answers:
			if !ok {
				t.Fatal("no answer: the server ended the session")
			}
			line = l
		case <-time.After(10 * time.Second):
			t.Fatal("no answer in 10 s: the server is waiting for the rest of the frame")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, recv
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }
