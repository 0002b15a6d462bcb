package mcpx_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/mcpx"
)

// hugeSize is the size of the body TestRemoteHugeBody's server streams:
// 1 GiB unless REELIER_HUGE_SIZE (bytes) says otherwise.
func hugeSize() int64 {
	if n, err := strconv.ParseInt(os.Getenv("REELIER_HUGE_SIZE"), 10, 64); err == nil && n > 0 {
		return n
	}
	return 1 << 30
}

// writeHuge writes a JSON-RPC result for id whose text is n bytes of 'A',
// generated as it is written, never held; as one SSE event when sse is
// set, with a Content-Length header when length is set (else chunked). It stops when the client goes away.
func writeHuge(w http.ResponseWriter, id json.RawMessage, n int64, sse, length bool) {
	head := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"`
	tail := `"}]}}`
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
		head = "event: message\ndata: " + head
		tail += "\n\n"
	} else {
		w.Header().Set("Content-Type", "application/json")
		if length {
			w.Header().Set("Content-Length", strconv.FormatInt(int64(len(head))+n+int64(len(tail)), 10))
		}
	}
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, head); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("A"), 64<<10)
	for left := n; left > 0; {
		c := chunk[:min(int64(len(chunk)), left)]
		if _, err := w.Write(c); err != nil {
			return
		}
		left -= int64(len(c))
	}
	io.WriteString(w, tail)
}

// TestRemoteHugeBody: a remote server that answers a tool call, after a
// valid handshake, with a 1 GiB body — a plain JSON response with its
// Content-Length or chunked, or one SSE event — fails the call with an error naming the server and the limit,
// and the process stays under 100 MB of memory. The call runs in a child
// process (TestRemoteHugeBodyChild) whose peak resident size (VmHWM) is
// read back; on main the body was read whole.
func TestRemoteHugeBody(t *testing.T) {
	if testing.Short() {
		t.Skip("streams a large body")
	}
	for _, mode := range []string{"json-length", "json-chunked", "sse"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRemoteHugeBodyChild$", "-test.v")
			cmd.Env = append(os.Environ(), "REELIER_HUGE_CHILD="+mode)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var peak int64 = -1
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "VmHWM-kB: "); ok {
					peak, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			t.Logf("%s: %d MiB body, peak RSS %d kB\n%s", mode, hugeSize()>>20, peak, out)
			if peak < 0 {
				t.Fatal("the child reported no peak")
			}
			if peak >= 100*1000 {
				t.Errorf("%s: peak RSS %d kB, want under 100 MB", mode, peak)
			}
		})
	}
}

// TestRemoteHugeBodyChild is TestRemoteHugeBody's child process.
func TestRemoteHugeBodyChild(t *testing.T) {
	mode := os.Getenv("REELIER_HUGE_CHILD")
	if mode == "" {
		t.Skip("run by TestRemoteHugeBody")
	}
	ts := remoteServer(t, "", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				var req struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal(body, &req) == nil && req.Method == "tools/call" {
					writeHuge(w, req.ID, hugeSize(), mode == "sse", mode == "json-length")
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			next.ServeHTTP(w, r)
		})
	})
	// The default limit (64 MiB): a message is held whole, in chunks,
	// before anything above the bounded body sees it, so the oversized one
	// costs one limit's worth and no copy in the SDK or the recorder's tap.
	// Before, the SDK and the tap each buffered up to the limit and the
	// peak was several hundred MB at this limit.
	r, err := startRemote(t, ts.URL+"/mcp", nil, mcpx.Options{CallTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), nil)
	fmt.Printf("call error: %v\n", err)
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Printf("VmHWM-kB: %s\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	if err == nil {
		t.Fatal("a 1 GiB answer was read")
	}
	if !strings.Contains(err.Error(), ts.URL) || !strings.Contains(err.Error(), "over the 64 MiB limit on a message") {
		t.Errorf("the error names neither the server nor the limit: %v", err)
	}
}
