package mcpx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
)

// TestCallTimeout: calls the downstream does not answer within the limit
// fail with a *CallTimeoutError inside a *DownstreamError naming the
// downstream, many at once, with and without progress tokens; the calls
// made in between and after are answered.
func TestCallTimeout(t *testing.T) {
	const limit = 300 * time.Millisecond
	r, err := mcpx.Start(context.Background(), []string{server("a")}, mcpx.Options{CallTimeout: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	for k := range 8 {
		wg.Go(func() {
			var meta mcp.Meta
			if k%2 == 0 {
				meta = mcp.Meta{"progressToken": fmt.Sprintf("tok-%d", k)}
			}
			t0 := time.Now()
			_, _, err := r.Call(context.Background(), "slow", json.RawMessage(`{"ms":600000}`), meta)
			var de *mcpx.DownstreamError
			var te *mcpx.CallTimeoutError
			if !errors.As(err, &de) || !errors.As(err, &te) || te.Limit != limit || de.Index != 0 {
				t.Errorf("call %d: %v; want the call limit", k, err)
			}
			if want := fmt.Sprintf("downstream 0 (%s) failed: no answer within the 300ms call limit", server("a")); err == nil || err.Error() != want {
				t.Errorf("call %d: %v; want %q", k, err, want)
			}
			if d := time.Since(t0); d < limit {
				t.Errorf("call %d cut off after %v, before its limit", k, d)
			}
		})
		wg.Go(func() {
			res, _, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"x"}`), nil)
			if err != nil || res.IsError {
				t.Errorf("echo beside the slow calls: %v", err)
			}
		})
	}
	wg.Wait()
	if res, _, err := r.Call(context.Background(), "slow", json.RawMessage(`{"ms":1}`), nil); err != nil || res.IsError {
		t.Errorf("a quick call after the limits: %v", err)
	}
	// A call the caller cancels is not reported as a limit.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.Call(ctx, "slow", json.RawMessage(`{"ms":600000}`), nil); err == nil || errors.As(err, new(*mcpx.CallTimeoutError)) {
		t.Errorf("a cancelled call: %v; want a cancellation", err)
	}
}
