package record_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/testkit/mcptest"
)

// BenchmarkAddedLatencyHTTP measures what the proxy adds per call when
// HTTP is on one side, interleaving each proxied call with the same call
// on the direct path (see BenchmarkAddedLatency):
//
//   - agenthttp: the agent reaches `reelier mcp --http` over loopback
//     HTTP, the proxy a test server on stdio; the direct path is the
//     agent on stdio to the same server.
//   - remote: the agent reaches `reelier mcp` on stdio, the proxy a remote
//     test server over loopback streamable HTTP; the direct path is the
//     agent over HTTP to that server.
//
// Run with
//
//	go test -run '^$' -bench AddedLatencyHTTP -benchmem ./record/
func BenchmarkAddedLatencyHTTP(b *testing.B) {
	b.Run("agenthttp", func(b *testing.B) {
		p := startHTTPProxy(b, nil, "--quiet", "--wrap", server("a"))
		proxied, err := connectHTTP(b, p.url, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchAddedVs(b, directProcess(b), proxied)
	})
	b.Run("remote", func(b *testing.B) {
		srv := mcptest.NewServer(mcptest.Options{Name: "a"})
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		b.Cleanup(ts.Close)
		direct, err := connectHTTP(b, ts.URL, nil)
		if err != nil {
			b.Fatal(err)
		}
		p := startBinary(b, "", ts.URL)
		benchAddedVs(b, direct, p.session)
	})
}

// benchAddedVs interleaves a call on the direct path with one through the
// proxy and reports the percentiles of each and of their difference.
func benchAddedVs(b *testing.B, direct, proxied *mcp.ClientSession) {
	args := map[string]any{"text": "ping"}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for range 200 {
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
