package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// path is one way for the harness's MCP client to reach the echo server.
type path struct {
	name    string
	cmd     *exec.Cmd
	session *mcp.ClientSession
	lat     []time.Duration
}

func connect(ctx context.Context, name string, cmd *exec.Cmd) (*path, error) {
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "abbench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &path{name: name, cmd: cmd, session: cs}, nil
}

func (p *path) call(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}})
	d := time.Since(t0)
	if err == nil && res.IsError {
		err = fmt.Errorf("echo returned an error")
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", p.name, err)
	}
	return d, nil
}

// close ends the session.
func (p *path) close() { p.session.Close() }

func percentile(ds []time.Duration, q int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*q/100)]
}

// proxyBench measures the latency `reelier mcp` adds to a tools/call on a
// stdio server, interleaving each call with the same call made straight to
// the server and through the byte relay, then the recording throughput.
func proxyBench(c Config, b binaries) error {
	ctx := context.Background()
	traces := filepath.Join(c.Work, "traces")
	server := b.echoserver + " -name a"
	mk := map[string]func() *exec.Cmd{
		"direct": func() *exec.Cmd { return exec.Command(b.echoserver, "-name", "a") },
		"relay":  func() *exec.Cmd { return exec.Command(b.relay, b.echoserver, "-name", "a") },
		"reelier mcp": func() *exec.Cmd {
			return exec.Command(b.reelier, "mcp", "--wrap", server, "--trace-dir", traces)
		},
	}
	if b.base != "" {
		mk["base mcp"] = func() *exec.Cmd {
			return exec.Command(b.base, "mcp", "--wrap", server, "--trace-dir", traces+"-base")
		}
	}
	names := []string{"direct", "relay", "reelier mcp"}
	if b.base != "" {
		names = append(names, "base mcp")
	}
	var paths []*path
	for _, n := range names {
		p, err := connect(ctx, n, mk[n]())
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	warm := min(200, c.ProxyCalls)
	for i := 0; i < warm+c.ProxyCalls; i++ {
		for j := range paths {
			// Rotate the order each round.
			p := paths[(i+j)%len(paths)]
			d, err := p.call(ctx)
			if err != nil {
				return err
			}
			if i >= warm {
				p.lat = append(p.lat, d)
			}
		}
	}
	load := loadAverage()
	direct := paths[0]
	fmt.Fprintf(c.Out, "\nproxy: %d interleaved echo calls per path after %d warm-up, MCP Go SDK client, stdio echo server (internal/mcptest); load average %s\n\n", c.ProxyCalls, warm, load)
	fmt.Fprintln(c.Out, "| path | p50 ms | p99 ms | added p50 ms | added p99 ms | goal | met |")
	fmt.Fprintln(c.Out, "| --- | --- | --- | --- | --- | --- | --- |")
	dp50, dp99 := percentile(direct.lat, 50), percentile(direct.lat, 99)
	for _, p := range paths {
		p50, p99 := percentile(p.lat, 50), percentile(p.lat, 99)
		goal, met := "—", "—"
		if p.name == "reelier mcp" {
			goal = "added p50 ≤ 0.1, p99 ≤ 0.5"
			met = yes(p50-dp50 <= 100*time.Microsecond && p99-dp99 <= 500*time.Microsecond)
		}
		fmt.Fprintf(c.Out, "| %s | %.3f | %.3f | %.3f | %.3f | %s | %s |\n", p.name, msf(p50), msf(p99), msf(p50-dp50), msf(p99-dp99), goal, met)
	}
	// (No peak RSS here: these processes are started from the harness,
	// whose own memory wait4 would count; see measure.)
	for _, p := range paths {
		p.close()
	}

	// Throughput: 16 goroutines calling through each path at once, the
	// reelier paths recording every call.
	fmt.Fprintf(c.Out, "\nthroughput: %d calls from 16 goroutines; reelier recording every call to a trace\n\n", c.ProxyThroughput)
	fmt.Fprintln(c.Out, "| path | calls/s | goal | met |")
	fmt.Fprintln(c.Out, "| --- | --- | --- | --- |")
	for _, n := range names {
		p, err := connect(ctx, n, mk[n]())
		if err != nil {
			return err
		}
		if strings.HasSuffix(n, "mcp") {
			res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: "reelier_start_recording", Arguments: map[string]any{"name": "abbench"}})
			if err != nil || res.IsError {
				p.close()
				return fmt.Errorf("%s: reelier_start_recording: %v", n, err)
			}
		}
		rate, err := throughput(ctx, p, c.ProxyThroughput)
		p.close()
		if err != nil {
			return err
		}
		goal, met := "—", "—"
		if n == "reelier mcp" {
			goal, met = "≥ 5,000", yes(rate >= 5000)
		}
		fmt.Fprintf(c.Out, "| %s | %.0f | %s | %s |\n", n, rate, goal, met)
	}
	return nil
}

func throughput(ctx context.Context, p *path, total int) (float64, error) {
	var left atomic.Int64
	left.Store(int64(total))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	t0 := time.Now()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if _, err := p.call(ctx); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(total) / time.Since(t0).Seconds(), first
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
