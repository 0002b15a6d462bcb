package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The proxy workload measures what `reelier mcp` adds to a tools/call on a
// stdio server, against the same call made straight to the server and
// through a bare byte relay, in three setups:
//
//   - the MCP Go SDK's client and test server (testkit/mcptest), the
//     client on its default protocol revision (2026-07-28, which the
//     proxy's fast path serves as the SDK's sessions would, record/modern.go);
//   - the same on revision 2025-11-25, which the proxy's fast path serves
//     too (record/fast.go);
//   - a raw client (rawClient, on 2025-11-25) and the limit server
//     rawecho, both doing the least work a call needs, so that the
//     difference between the paths is the proxy's own cost.
//
// Throughput: 16 goroutines of the SDK's client calling at once, on each
// revision, and the raw client pipelining calls (up to rawWindow in flight)
// to rawecho, the rate bounded by the proxy instead of the endpoints. The
// reelier paths record every call of the throughput runs to a trace.

// caller makes echo calls on one path.
type caller interface {
	call(ctx context.Context) error
	close()
}

// path is one way for a client to reach the echo server.
type path struct {
	name string
	c    caller
	lat  []time.Duration
}

func (p *path) call(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	err := p.c.call(ctx)
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", p.name, err)
	}
	return d, nil
}

// sdkCaller is the MCP Go SDK's client.
type sdkCaller struct{ session *mcp.ClientSession }

func connectSDK(ctx context.Context, cmd *exec.Cmd, version string) (caller, error) {
	cmd.Stderr = os.Stderr
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "abbench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		return nil, err
	}
	return &sdkCaller{session: cs}, nil
}

func (s *sdkCaller) call(ctx context.Context) error {
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}})
	if err == nil && res.IsError {
		err = fmt.Errorf("echo returned an error")
	}
	return err
}

func (s *sdkCaller) startRecording(ctx context.Context) error {
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "reelier_start_recording", Arguments: map[string]any{"name": "abbench"}})
	if err == nil && res.IsError {
		err = fmt.Errorf("%v", res.Content)
	}
	return err
}

func (s *sdkCaller) close() { s.session.Close() }

// rawClient speaks newline-delimited JSON-RPC to a child process with no
// MCP library: requests written as prepared bytes, responses matched to
// their callers by id, read with a minimal look at each line.
type rawClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	wmu  sync.Mutex
	next atomic.Int64

	mu      sync.Mutex
	waiting map[int64]chan []byte
	err     error
}

// rawWindow bounds the raw client's calls in flight in the throughput run.
const rawWindow = 64

func connectRaw(ctx context.Context, cmd *exec.Cmd) (*rawClient, error) {
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawClient{cmd: cmd, in: in, waiting: map[int64]chan []byte{}}
	go c.read(out)
	if _, err := c.request(`"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"abbench-raw","version":"1"}}`); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	c.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return c, nil
}

func (c *rawClient) read(out io.Reader) {
	r := bufio.NewReaderSize(out, 64<<10)
	var msg struct {
		ID *int64 `json:"id"`
	}
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			msg.ID = nil
			if json.Unmarshal(line, &msg) == nil && msg.ID != nil {
				c.mu.Lock()
				ch := c.waiting[*msg.ID]
				delete(c.waiting, *msg.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- line
				}
			}
		}
		if err != nil {
			c.mu.Lock()
			c.err = fmt.Errorf("the server's output ended: %v", err)
			for id, ch := range c.waiting {
				close(ch)
				delete(c.waiting, id)
			}
			c.mu.Unlock()
			return
		}
	}
}

func (c *rawClient) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.in.Write(b)
	return err
}

// send writes a request (method and params, as JSON text after the
// method's colon) and returns the channel its response comes on.
func (c *rawClient) send(methodAndParams string) (chan []byte, error) {
	id := c.next.Add(1)
	ch := make(chan []byte, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.waiting[id] = ch
	c.mu.Unlock()
	line := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":` + methodAndParams + "}\n"
	return ch, c.write([]byte(line))
}

func (c *rawClient) request(methodAndParams string) ([]byte, error) {
	ch, err := c.send(methodAndParams)
	if err != nil {
		return nil, err
	}
	resp, ok := <-ch
	if !ok {
		return nil, c.err
	}
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &m); err != nil {
		return nil, err
	}
	switch {
	case m.Error != nil:
		return nil, fmt.Errorf("%s", m.Error.Message)
	case m.Result == nil:
		return nil, fmt.Errorf("no result: %s", resp)
	case m.Result.IsError:
		return nil, fmt.Errorf("an error result: %s", resp)
	}
	return resp, nil
}

const rawEcho = `"tools/call","params":{"name":"echo","arguments":{"text":"ping"}}`

func (c *rawClient) call(context.Context) error {
	_, err := c.request(rawEcho)
	return err
}

func (c *rawClient) startRecording(context.Context) error {
	_, err := c.request(`"tools/call","params":{"name":"reelier_start_recording","arguments":{"name":"abbench-raw"}}`)
	return err
}

func (c *rawClient) close() {
	c.in.Close()
	c.cmd.Wait()
}

// pipelined makes total echo calls with up to rawWindow in flight and
// returns the rate.
func (c *rawClient) pipelined(total int) (float64, error) {
	window := make(chan struct{}, rawWindow)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range total {
		window <- struct{}{}
		ch, err := c.send(rawEcho)
		if err != nil {
			return 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := <-ch; !ok {
				select {
				case errs <- fmt.Errorf("no response: %v", c.err):
				default:
				}
			}
			<-window
		}()
	}
	wg.Wait()
	rate := float64(total) / time.Since(t0).Seconds()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return rate, nil
}

func percentile(ds []time.Duration, q int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*q/100)]
}

// setup is one client-and-server pairing of the proxy workload.
type setup struct {
	title   string
	version string // the SDK client's protocol revision; "" for its default
	raw     bool   // the raw client and rawecho
}

// commands returns the command of each path, by name, and their order.
func (s setup) commands(c Config, b binaries) (map[string]func(traces string) *exec.Cmd, []string) {
	server, args := b.echoserver, []string{"-name", "a"}
	if s.raw {
		server, args = b.rawecho, nil
	}
	wrap := server
	for _, a := range args {
		wrap += " " + a
	}
	mk := map[string]func(string) *exec.Cmd{
		"direct": func(string) *exec.Cmd { return exec.Command(server, args...) },
		"relay":  func(string) *exec.Cmd { return exec.Command(b.relay, append([]string{server}, args...)...) },
		"reelier mcp": func(traces string) *exec.Cmd {
			return exec.Command(b.reelier, "mcp", "--wrap", wrap, "--trace-dir", traces)
		},
	}
	names := []string{"direct", "relay", "reelier mcp"}
	if b.base != "" {
		mk["base mcp"] = func(traces string) *exec.Cmd {
			return exec.Command(b.base, "mcp", "--wrap", wrap, "--trace-dir", traces+"-base")
		}
		names = append(names, "base mcp")
	}
	return mk, names
}

func (s setup) connect(ctx context.Context, cmd *exec.Cmd) (caller, error) {
	if s.raw {
		return connectRaw(ctx, cmd)
	}
	return connectSDK(ctx, cmd, s.version)
}

var setups = []setup{
	{title: "MCP Go SDK client on its default protocol revision (2026-07-28: the proxy's fast path), stdio echo server (testkit/mcptest)"},
	{title: "MCP Go SDK client on protocol revision 2025-11-25 (the proxy's fast path), stdio echo server (testkit/mcptest)", version: "2025-11-25"},
	{title: "raw JSON-RPC client on 2025-11-25 (the proxy's fast path), limit echo server (bench/ab/limits/rawecho)", raw: true},
}

// proxyBench measures the latency `reelier mcp` adds to a tools/call on a
// stdio server, interleaving each call with the same call made straight to
// the server and through the byte relay, then the recording throughput.
func proxyBench(c Config, b binaries) error {
	ctx := context.Background()
	traces := filepath.Join(c.Work, "traces")
	for k, s := range setups {
		if err := s.latency(ctx, c, b, filepath.Join(traces, strconv.Itoa(k))); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.Out, "\nthroughput: %d calls; reelier recording every call to a trace\n\n", c.ProxyThroughput)
	fmt.Fprintln(c.Out, "| client, server | path | calls/s | goal | met |")
	fmt.Fprintln(c.Out, "| --- | --- | --- | --- | --- |")
	for k, s := range setups {
		label := "SDK client ×16 goroutines, 2026-07-28, mcptest"
		switch {
		case s.raw:
			label = fmt.Sprintf("raw client pipelining (%d in flight), rawecho", rawWindow)
		case s.version != "":
			label = "SDK client ×16 goroutines, " + s.version + ", mcptest"
		}
		mk, names := s.commands(c, b)
		for _, n := range names {
			p, err := s.connect(ctx, mk[n](filepath.Join(traces, "t"+strconv.Itoa(k))))
			if err != nil {
				return fmt.Errorf("%s: %w", n, err)
			}
			if n == "reelier mcp" || n == "base mcp" {
				if err := p.(interface {
					startRecording(context.Context) error
				}).startRecording(ctx); err != nil {
					p.close()
					return fmt.Errorf("%s: reelier_start_recording: %v", n, err)
				}
			}
			var rate float64
			if s.raw {
				rate, err = p.(*rawClient).pipelined(c.ProxyThroughput)
			} else {
				rate, err = throughput(ctx, &path{name: n, c: p}, c.ProxyThroughput)
			}
			p.close()
			if err != nil {
				return fmt.Errorf("%s: %w", n, err)
			}
			goal, met := "—", "—"
			if n == "reelier mcp" {
				goal, met = "≥ 5,000", yes(rate >= 5000)
			}
			fmt.Fprintf(c.Out, "| %s | %s | %.0f | %s | %s |\n", label, n, rate, goal, met)
		}
	}
	return nil
}

// latency runs the interleaved calls of one setup and prints its table.
func (s setup) latency(ctx context.Context, c Config, b binaries, traces string) error {
	mk, names := s.commands(c, b)
	var paths []*path
	defer func() {
		for _, p := range paths {
			p.c.close()
		}
	}()
	for _, n := range names {
		cl, err := s.connect(ctx, mk[n](traces))
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		paths = append(paths, &path{name: n, c: cl})
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
	fmt.Fprintf(c.Out, "\nproxy: %d interleaved echo calls per path after %d warm-up; %s; load average %s\n\n", c.ProxyCalls, warm, s.title, load)
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
