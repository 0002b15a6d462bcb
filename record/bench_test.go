package record_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Benchmarks of the proxy on the agent's live path. Run with
//
//	go test -run '^$' -bench . -benchmem ./record/
//
// BenchmarkAddedLatency interleaves a call straight to a test server (a
// child process on stdio) with the same call through the proxy, so both
// see the same machine state, and reports the percentiles of each path and
// of the difference: the latency the proxy adds per call. The proxy runs
// in this process (the agent reaches it in memory) or as the reelier
// binary (the agent reaches it on stdio, as in production).

func BenchmarkAddedLatency(b *testing.B) {
	b.Run("inprocess", func(b *testing.B) {
		f := start(b, "a")
		benchAdded(b, f.session)
	})
	b.Run("binary", func(b *testing.B) {
		p := startBinary(b, "", server("a"))
		benchAdded(b, p.session)
		reportProxyCPU(b, p)
	})
}

func benchAdded(b *testing.B, proxied *mcp.ClientSession) {
	direct := directProcess(b)
	args := map[string]any{"text": "ping"}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for range 200 { // warm both paths up
		call(direct)
		call(proxied)
	}
	var d, p []time.Duration
	b.ResetTimer()
	for b.Loop() {
		d = append(d, call(direct))
		p = append(p, call(proxied))
	}
	b.StopTimer()
	dp50, dp99 := percentiles(d)
	pp50, pp99 := percentiles(p)
	b.ReportMetric(ms(dp50), "direct-p50-ms")
	b.ReportMetric(ms(dp99), "direct-p99-ms")
	b.ReportMetric(ms(pp50), "proxy-p50-ms")
	b.ReportMetric(ms(pp99), "proxy-p99-ms")
	b.ReportMetric(ms(pp50-dp50), "added-p50-ms")
	b.ReportMetric(ms(pp99-dp99), "added-p99-ms")
}

// reportProxyCPU reports the CPU time the reelier process spent per
// benchmark iteration, start-up included: a figure the load of a shared
// machine hardly moves, unlike wall-clock latency.
func reportProxyCPU(b *testing.B, p *proxyProcess) {
	b.ReportMetric(float64(p.cpu(b).Microseconds())/float64(b.N), "proxy-cpu-µs/call")
}

// directProcess connects to a test server started as a child process.
func directProcess(b *testing.B) *mcp.ClientSession {
	cmd := exec.Command(os.Args[0], "-name", "a")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*50/100], s[min(len(s)-1, len(s)*99/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkRecordingThroughput makes calls from many goroutines at once
// while a recording runs, every call written to the trace as a call and a
// result record, and reports calls per second: through the proxy in this
// process, and through the reelier binary (the agent's side then costs
// this process only its own client).
func BenchmarkRecordingThroughput(b *testing.B) {
	b.Run("inprocess", func(b *testing.B) {
		f := start(b, "a")
		benchThroughput(b, f.session)
	})
	b.Run("binary", func(b *testing.B) {
		p := startBinary(b, "", server("a"))
		benchThroughput(b, p.session)
		reportProxyCPU(b, p)
	})
}

func benchThroughput(b *testing.B, cs *mcp.ClientSession) {
	if text, _ := callSession(b, cs, "reelier_start_recording", map[string]any{"name": "throughput"}, nil); !strings.HasPrefix(text, "Recording to ") {
		b.Fatalf("start: %q", text)
	}
	args := map[string]any{"text": "ping"}
	var calls atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	t0 := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Error(err)
				return
			}
			calls.Add(1)
		}
	})
	elapsed := time.Since(t0)
	b.StopTimer()
	b.ReportMetric(float64(calls.Load())/elapsed.Seconds(), "calls/s")
	text, _ := callSession(b, cs, "reelier_stop_recording", nil, nil)
	if want := fmt.Sprintf(" holds %d call", calls.Load()); !strings.Contains(text, want) {
		b.Errorf("stop: %q; want it to say%q", text, want)
	}
}
