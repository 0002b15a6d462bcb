package mcpx_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/mcpx"
)

// lockedBuffer is a strings.Builder safe for the notice goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStartWaitNotice: a server that never finishes its handshake gets a
// "still waiting" line on stderr while the start runs, naming the flag
// that bounds it, and the timeout's message names that flag too; with no
// flag named (reelier mcp's start) neither appears.
func TestStartWaitNotice(t *testing.T) {
	for _, flag := range []string{"--handshake-timeout", ""} {
		var stderr lockedBuffer
		_, err := mcpx.Start(context.Background(), []string{"sleep 30"}, mcpx.Options{
			Stderr: &stderr, StartTimeout: 900 * time.Millisecond, StartTimeoutFlag: flag, NoticeAfter: 200 * time.Millisecond})
		if err == nil {
			t.Fatal("a server that never answers started")
		}
		waiting := strings.Contains(stderr.String(), `[reelier] still waiting for --wrap "sleep 30" to finish the MCP handshake (`)
		bounded := strings.HasSuffix(err.Error(), "within 900ms; --handshake-timeout sets the limit")
		if flag != "" && (!waiting || !bounded || !strings.Contains(stderr.String(), "--handshake-timeout 900ms bounds it")) {
			t.Errorf("flag %q: stderr %q, error %v", flag, stderr.String(), err)
		}
		if flag == "" && (waiting || strings.Contains(err.Error(), "sets the limit")) {
			t.Errorf("no flag: stderr %q, error %v", stderr.String(), err)
		}

	}
}
