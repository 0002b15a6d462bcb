package mcpx

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// tapWith is a tap waiting for the responses to calls 1, 2 and "s".
func tapWith(t *testing.T) (*tapConn, *capture) {
	t.Helper()
	tap := newTap()
	ctx, cp := withCapture(context.Background())
	for _, id := range []any{float64(1), float64(2), "s"} {
		jid, err := jsonrpc.MakeID(id)
		if err != nil {
			t.Fatal(err)
		}
		tap.sent(ctx, &jsonrpc.Request{ID: jid, Method: "tools/call"})
	}
	return tap, cp
}

// feedSSE feeds stream to a new sseFeed in pieces of size n (all at
// once when n is 0) and returns the raw results captured.
func feedSSE(t *testing.T, stream string, n int) []string {
	t.Helper()
	tap, cp := tapWith(t)
	f := &sseFeed{tap: tap, max: 1 << 10}
	b := []byte(stream)
	for len(b) > 0 {
		k := len(b)
		if n > 0 && n < k {
			k = n
		}
		f.write(b[:k])
		b = b[k:]
	}
	f.end()
	var got []string
	for _, r := range cp.results() {
		got = append(got, string(r))
	}
	return got
}

// TestSSEFeed: the events of a stream, however it is cut into reads,
// with every line ending SSE allows, give the responses they carry.
func TestSSEFeed(t *testing.T) {
	tests := []struct {
		name, stream string
		want         []string
	}{
		{"one event", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1}}\n\n", []string{`{"a":1}`}},
		{"CRLF and an id and a priming event", "id: 0\r\ndata: \r\n\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n", []string{`{}`}},
		{"CR only", "data: {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":[1]}\r\r", []string{`[1]`}},
		{"data over two lines", "data: {\"jsonrpc\":\"2.0\",\"id\":2,\ndata: \"result\":{\"b\":true}}\n\n", []string{`{"b":true}`}},
		{"no space after the colon, a comment", ": ping\ndata:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":3}\n\n", []string{`3`}},
		{"two events, a request between", "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n", []string{`1`, `2`}},
		{"an error response captures nothing", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"x\"}}\n\n", nil},
		{"a call not waited for", "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":1}\n\n", nil},
		{"an event cut off by the end", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n", nil},
		{"over the limit", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"" + string(make([]byte, 2000)) + "\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n", []string{`2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 7} {
				if got := feedSSE(t, tt.stream, n); !slices.Equal(got, tt.want) {
					t.Errorf("read %d bytes at a time: %q, want %q", n, got, tt.want)
				}
			}
		})
	}
}

// FuzzSSEFeed: any stream, cut anywhere, gives the same results as read
// whole, and never a panic.
func FuzzSSEFeed(f *testing.F) {
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", 3)
	f.Add("id: 1\r\ndata: \r\n\r\n\r\r\n", 1)
	f.Fuzz(func(t *testing.T, stream string, n int) {
		if n < 0 {
			n = -n
		}
		whole := feedSSE(t, stream, 0)
		if cut := feedSSE(t, stream, n%64); !slices.Equal(cut, whole) {
			t.Errorf("cut every %d bytes: %q; whole: %q", n%64, cut, whole)
		}
	})
}

// TestJSONFeed: a JSON body is one message, read to its end.
func TestJSONFeed(t *testing.T) {
	tap, cp := tapWith(t)
	f := &jsonFeed{tap: tap, max: 1 << 10}
	body := []byte(`{"jsonrpc":"2.0","id":"s","result":{"x":[1,2]}}`)
	f.write(body[:10])
	f.write(body[10:])
	f.end()
	if got := cp.results(); len(got) != 1 || string(got[0]) != `{"x":[1,2]}` {
		t.Errorf("captured %q", got)
	}
	var over jsonFeed
	over.tap, over.max = tap, 4
	over.write(body)
	over.end()
	if len(cp.results()) != 1 {
		t.Errorf("a body over the limit was captured")
	}
}
