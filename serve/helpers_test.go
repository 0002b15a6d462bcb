package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect starts a server on opts over in-memory transports and returns a
// go-sdk client session on it.
func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientOn(t, ct)
}

// clientOn connects a go-sdk client over t.
func clientOn(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1.0.0"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool with arguments given as a JSON text (so tests can
// send what no Go type would) and returns the result, failing the test
// on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, tool, args string) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: tool}
	if args != "" {
		params.Arguments = json.RawMessage(args)
	}
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatalf("%s %s: protocol error %v", tool, args, err)
	}
	return res
}

// text is the result's single text content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, not text", res.Content[0])
	}
	return tc.Text
}

// decode unmarshals a successful result's structured content into out.
func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", text(t, res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
}

// wantError checks that res is an isError result whose text contains
// every one of want.
func wantError(t *testing.T, res *mcp.CallToolResult, want ...string) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an isError result, got success: %s", text(t, res))
	}
	msg := text(t, res)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
	return msg
}

// writeFiles creates files under dir from name → content.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeAPI is a booking API on 127.0.0.1 that counts its requests.
func fakeAPI(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bookings", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"bookings":[{"id":"bk_1","status":"confirmed"},{"id":"bk_2","status":"pending"}]}`)
	})
	mux.HandleFunc("GET /bookings/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q,"status":"pending"}`, r.PathValue("id"))
	})
	mux.HandleFunc("POST /bookings/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q,"cancelled":true}`, r.PathValue("id"))
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

// bookingsSkill lists bookings (checked) and reads the first (unchecked).
const bookingsSkill = `---
name: bookings
description: List this week's bookings and read the first
---

## Steps

### Step 1 — List bookings
- intent: List this week's bookings
- action: http.get {"url": "{{base}}/bookings"}
- assert: status == 200
- assert: json.bookings length > 0
- bind: id = json.bookings.0.id
- effect: read

### Step 2 — Read the first booking
- intent: Read it, checking nothing
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- effect: read
`

// checkSkill fails at step 1 (the booking is pending) and never reaches
// step 2.
const checkSkill = `---
name: checker
description: Check that a booking is confirmed
---

## Steps

### Step 1 — Check the booking
- intent: The second booking should be confirmed
- action: http.get {"url": "{{base}}/bookings/bk_2"}
- assert: json.status == "confirmed"
- effect: read

### Step 2 — Never runs
- intent: List the bookings
- action: http.get {"url": "{{base}}/bookings"}
- assert: status == 200
- effect: read
`

// cancelSkill is destructive.
const cancelSkill = `---
name: cancel
description: Cancel a booking
---

## Steps

### Step 1 — Cancel it
- intent: Cancel the first booking
- action: http.post {"url": "{{base}}/bookings/bk_1/cancel"}
- assert: json.cancelled == true
- effect: destructive
`

// brokenSkill does not parse.
const brokenSkill = `---
name: broken
description: A typo in an assert
---

## Steps

### Step 1 — Typo
- intent: Check a field
- action: http.get {"url": "https://example.com"}
- assert: json.x iss array
- effect: read
`
