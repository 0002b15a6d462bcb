package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/lsp"
)

// frames encodes messages with the LSP base protocol's header.
func frames(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

// stdio is a one-way session: the whole input up front, the output kept.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

// summarize reads framed messages and describes each in a few words:
// "reply 1", "error null -32700", "notify window/logMessage".
func summarize(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for rest := out; rest != ""; {
		var size int
		if _, err := fmt.Sscanf(rest, "Content-Length: %d\r\n\r\n", &size); err != nil {
			t.Fatalf("bad header in %q", rest)
		}
		body := rest[strings.Index(rest, "\r\n\r\n")+4:]
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body[:size]), &msg); err != nil {
			t.Fatalf("reply %q: %v", body[:size], err)
		}
		switch {
		case msg.Method != "":
			got = append(got, "notify "+msg.Method)
		case msg.Error != nil:
			got = append(got, fmt.Sprintf("error %s %d", msg.ID, msg.Error.Code))
		default:
			got = append(got, "reply "+string(msg.ID))
		}
		rest = body[size:]
	}
	return got
}

// TestMalformedMessages: a well-framed message that is not JSON, or not
// JSON-RPC, is answered with a JSON-RPC error (under the request's id
// when it can be read), logged, and the session goes on to shutdown.
func TestMalformedMessages(t *testing.T) {
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
		hover      = `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.skill.md"},"position":{"line":0,"character":0}}}`
		shutdown   = `{"jsonrpc":"2.0","id":3,"method":"shutdown"}`
		exit       = `{"jsonrpc":"2.0","method":"exit"}`
	)
	tests := []struct {
		name, body string
		want       string // the error reply
		log        string // in the server's log
	}{
		{"not JSON", `{nope`, "error null -32700", "parse error: the message is not JSON (invalid character 'n' looking for beginning of object key string)"},
		{"empty body", ``, "error null -32700", "parse error: the message is not JSON (unexpected end of JSON input)"},
		{"cut short", `{"jsonrpc":"2.0","id":9,"method":"shut`, "error null -32700", "not JSON"},
		{"binary", "\x00\xff\xfe", "error null -32700", "not JSON"},
		{"a batch", `[` + shutdown + `]`, "error null -32600", "a JSON array (a batch)"},
		{"a string", `"shutdown"`, "error null -32600", "expected a JSON object"},
		{"empty object", `{}`, "error null -32600", "neither a method nor an id"},
		{"method not a string", `{"jsonrpc":"2.0","id":7,"method":42}`, "error 7 -32600", "not a JSON-RPC 2.0 message"},
		{"wrong version", `{"jsonrpc":"1.0","id":"a","method":"shutdown"}`, `error "a" -32600`, "invalid RPC version 1.0"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}`, "error null -32600", "not a JSON-RPC 2.0 message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, logs bytes.Buffer
			in := frames(initialize, tt.body, hover, shutdown, exit)
			if err := lsp.Serve(context.Background(), stdio{strings.NewReader(in), &out}, lsp.Options{Log: &logs}); err != nil {
				t.Fatalf("Serve: %v", err)
			}
			got := strings.Join(summarize(t, out.String()), ", ")
			want := "reply 1, " + tt.want + ", notify window/logMessage, error 2 -32602, reply 3"
			if got != want {
				t.Errorf("replies:\n got %s\nwant %s", got, want)
			}
			if !strings.Contains(logs.String(), tt.log) || !strings.Contains(logs.String(), "malformed message at input byte") {
				t.Errorf("log lacks %q:\n%s", tt.log, logs.String())
			}
		})
	}
}

// TestBrokenFrames: a frame that cannot be read ends the session with a
// FrameError saying what was wrong and where; the messages before it were
// answered. The input ending between frames is a clean end.
func TestBrokenFrames(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	init := frames(initialize)
	at := len(init)
	tests := []struct {
		name, input string
		want        string // the FrameError's text; "" for a clean end
	}{
		{"input ends between frames", init, ""},
		{"blank lines between frames", init + "\r\n\n" + init, ""},
		{"lower-case header name", init + "content-length: 2\r\n\r\n{}", ""},
		{"Content-Type accepted", init + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", ""},
		{"Content-Length not a number", init + "Content-Length: abc\r\n\r\n{}", `Content-Length "abc" is not a byte count`},
		{"negative Content-Length", init + "Content-Length: -2\r\n\r\n{}", `Content-Length "-2" is not a byte count`},
		{"Content-Length too large", init + "Content-Length: 99999999999999999999\r\n\r\n", "Content-Length 99999999999999999999 is too large"},
		{"Content-Length over the limit", init + "Content-Length: 1073741824\r\n\r\n", "Content-Length 1073741824 is larger than the 256 MiB a message may have"},
		{"two lengths", init + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "two Content-Length headers, 2 and 3"},
		{"no Content-Length", init + "Content-Type: x\r\n\r\n{}", "a header without Content-Length"},
		{"JSON without a header", init + initialize + "\n", `"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"cap…" is not a header line (want Name: value, as in Content-Length: 42)`},
		{"header line too long", init + "X-" + strings.Repeat("a", 5000) + ": b\r\n", "a header line longer than 4096 bytes"},
		{"too many header lines", init + strings.Repeat("X: y\r\n", 40), "more than 32 header lines"},
		{"input ends inside the header", init + "Content-Length: 5\r\n", "the input ended inside the header, before the blank line that ends it"},
		{"input ends inside a header line", init + "Content-Le", `the input ended inside the header line "Content-Le"`},
		{"input ends inside the body", init + "Content-Length: 100\r\n\r\n{\"json", "the input ended after 6 of the 100 body bytes that Content-Length announced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, logs bytes.Buffer
			err := lsp.Serve(context.Background(), stdio{strings.NewReader(tt.input), &out}, lsp.Options{Log: &logs})
			if got := summarize(t, out.String()); len(got) == 0 || got[0] != "reply 1" {
				t.Errorf("initialize was not answered: %v", got)
			}
			if tt.want == "" {
				if err != nil {
					t.Errorf("Serve: %v, want a clean end", err)
				}
				return
			}
			var fe *lsp.FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("Serve returned %v, want a *FrameError", err)
			}
			if fe.Offset != int64(at) || fe.Reason != tt.want {
				t.Errorf("FrameError at %d: %s\nwant at %d: %s", fe.Offset, fe.Reason, at, tt.want)
			}
		})
	}
}
