package mcpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/shlex"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/termtext"
)

// downstreamProtocol is the MCP revision the proxy speaks to downstreams
// first: the newest one with the initialize handshake, which every current
// server answers, and on which a server's requests (sampling, elicitation,
// roots) reach the relay. (The agent side negotiates its own revision with
// the proxy.)
const downstreamProtocol = "2025-11-25"

// modernProtocol is the revision a downstream that refuses the initialize
// handshake is spoken to on: the go-sdk client then opens the session
// with server/discover (SEP-2575) instead.
const modernProtocol = "2026-07-28"

// refusedHandshake is a downstream's JSON-RPC error answer to initialize:
// a server that speaks only 2026-07-28 and later refuses it (with
// -32022, unsupported protocol version, or Method not found).
type refusedHandshake struct{ err error }

func (r *refusedHandshake) Error() string { return r.err.Error() }

// refusal returns err as a refusedHandshake when it is the server's
// JSON-RPC error answer to the handshake, else err. Only the codes a
// server answers a request it will not take with count: the SDK reports
// transport failures as JSON-RPC errors too (-32005, rejected by
// transport), and those are not refusals.
func refusal(version string, err error) error {
	var rpc *jsonrpc.Error
	if version != downstreamProtocol || !errors.As(err, &rpc) {
		return err
	}
	switch rpc.Code {
	case mcp.CodeUnsupportedProtocolVersion, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidRequest:
		return &refusedHandshake{err}
	}
	return err
}

// retryModern tells, when the first handshake was refused, that the
// downstream was started again on modernProtocol.
const retryModern = "it refused the %s handshake (%v): spoken to on protocol revision %s, where its requests for the client's roots are answered with none"

// stopGrace is how long Close waits for a downstream to exit after its
// stdin is closed before killing it.
const stopGrace = 3 * time.Second

// cancelWait is how long close waits for the cancellation notifications
// the SDK owes the calls a stop cut short, which it writes off the
// caller's path.
const cancelWait = time.Second

// stderrDrain is how long a server's stderr is read after it exited.
const stderrDrain = time.Second

// Downstream is one wrapped MCP server, running as a child process.
type Downstream struct {
	// Index is the server's position in --wrap order, from 0.
	Index int
	// Name is the --wrap command as given; warnings and errors use it.
	Name string

	cmd     *exec.Cmd
	stdin   io.Closer
	exited  chan struct{} // closed when the process has exited
	waitErr error         // the process's exit, valid once exited is closed
	session *mcp.ClientSession
	tap     *tapConn

	callTimeout time.Duration // 0: calls are not limited
	limitMu     sync.Mutex
	limits      map[string]*time.Timer // the limits of calls with a progress token, by token

	tools     []*mcp.Tool
	rawTools  map[string]json.RawMessage // the exact definitions, by the server's names
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt

	pipe *pipeWriter // the server's stdin, for a local server
	raw  rawCalls    // calls made with CallRaw (rawcall.go)
	// cancelled counts the SDK calls whose context ended before their
	// answer (Ctrl-C): each is owed a notifications/cancelled, which
	// close waits for (cancelWait at most) before it closes the session.
	cancelled atomic.Int64

	remote *remote     // set for a server reached over HTTP (remote.go)
	notes  []string    // what Start reports about the server once it started
	rs     *relayState // see relay.go

	closeOnce sync.Once
}

// Instructions returns what the server told clients about itself at
// start, or "".
func (d *Downstream) Instructions() string {
	if res := d.session.InitializeResult(); res != nil {
		return res.Instructions
	}
	return ""
}

// ServerName returns the name the server gave itself at the MCP handshake
// (its serverInfo.name), or "".
func (d *Downstream) ServerName() string {
	if res := d.session.InitializeResult(); res != nil && res.ServerInfo != nil {
		return res.ServerInfo.Name
	}
	return ""
}

// ReadResource reads a resource from the server.
func (d *Downstream) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return forward(ctx, d, params.Meta, d.session.ReadResource, params)
}

// GetPrompt gets a prompt from the server by the server's own name for it.
func (d *Downstream) GetPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return forward(ctx, d, params.Meta, d.session.GetPrompt, params)
}

// forward sends one request to the server under the call limits (see
// limit; meta's progress token keeps a call alive): refused at once when
// the server is gone, a failure named for the downstream (fault).
func forward[P, R any](ctx context.Context, d *Downstream, meta mcp.Meta, send func(context.Context, P) (R, error), params P) (R, error) {
	var none R
	if err := d.gone(); err != nil {
		return none, d.fault(ctx, err)
	}
	ctx, stop := d.limit(ctx, meta["progressToken"])
	defer stop()
	res, err := send(ctx, params)
	if err != nil {
		return none, d.fault(ctx, err)
	}
	return res, nil
}

// startDownstream starts one --wrap command and completes the MCP
// handshake with it. The process inherits the environment; its stderr goes
// to stderr, line by line (nil discards it).
func startDownstream(ctx context.Context, index int, sv ServerSpec, stderr *lineWriter, opts Options) (*Downstream, error) {
	if sv.Remote() {
		return startRemote(ctx, index, sv.URL, sv.Headers, opts)
	}
	command := sv.Command
	if len(sv.Headers) > 0 {
		return nil, fmt.Errorf("--wrap %q: request headers apply only to a server given by its http:// or https:// URL", command)
	}
	argv, err := shlex.Split(command)
	if err != nil {
		return nil, fmt.Errorf("--wrap %q: %v", command, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("--wrap %q: the command is empty", command)
	}
	d, err := startLocal(ctx, index, command, argv, stderr, opts, downstreamProtocol)
	var refused *refusedHandshake
	if errors.As(err, &refused) {
		// A server that speaks only 2026-07-28 and later: start it
		// again, on a fresh process, and let the SDK open the session
		// with server/discover.
		d, err = startLocal(ctx, index, command, argv, stderr, opts, modernProtocol)
		if err != nil {
			return nil, fmt.Errorf("%w (it refused the %s handshake first: %v)", err, downstreamProtocol, refused.err)
		}
		d.notef(retryModern, downstreamProtocol, refused.err, d.Revision())
	}
	return d, err
}

// startLocal starts the command and completes the MCP handshake on the
// given protocol revision, then lists what the server offers.
func startLocal(ctx context.Context, index int, command string, argv []string, stderr *lineWriter, opts Options, version string) (*Downstream, error) {
	d := &Downstream{Index: index, Name: command, exited: make(chan struct{}), callTimeout: opts.CallTimeout, limits: map[string]*time.Timer{}}
	conn, err := d.spawn(argv, stderr, opts.maxMessage())
	if err != nil {
		return nil, fmt.Errorf("--wrap %q: %v", command, err)
	}
	client := d.newClient(opts)
	// The server's FrameReader tells the relay of its notifications
	// (divert), in the order of the stream.
	tt := &tapTransport{inner: conn}
	hctx, cancel := context.WithTimeout(ctx, opts.startTimeout())
	defer cancel()
	stopNotice := opts.waitNotice(fmt.Sprintf("--wrap %q", command))
	defer stopNotice()
	d.session, err = client.Connect(hctx, tt, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil && hctx.Err() == nil {
		if r := refusal(version, err); r != err {
			d.close()
			return nil, r
		}
	}
	if err == nil {
		d.tap = tt.conn
		err = d.list(hctx)
	}
	if err != nil {
		timedOut := hctx.Err() != nil
		stopNotice()
		d.close()
		msg := d.startFailure(timedOut, opts.startTimeout(), err)
		if timedOut {
			msg += opts.boundedBy()
		}
		return nil, fmt.Errorf("--wrap %q: %s", command, msg)
	}
	return d, nil
}

// Revision returns the protocol revision the downstream's session
// negotiated ("2025-11-25", or "2026-07-28" for a server that refused the
// initialize handshake), or "".
func (d *Downstream) Revision() string {
	if res := d.session.InitializeResult(); res != nil {
		return res.ProtocolVersion
	}
	return ""
}

// Modern reports whether the downstream's session is on 2026-07-28 or
// later: no server-initiated requests (they come as input requests of a
// call, which the SDK's client fulfils through the relay's handlers), no
// roots/list_changed, no logging/setLevel, no resources/subscribe.
func (d *Downstream) Modern() bool { return d.Revision() >= modernProtocol }

// newClient is the MCP client of one downstream, local or remote.
func (d *Downstream) newClient(opts Options) *mcp.Client {
	client := mcp.NewClient(&mcp.Implementation{Name: "reelier", Version: opts.Version}, d.clientOptions(opts))
	d.addRelayMiddleware(client)
	return client
}

// spawn starts the process on pipes the proxy owns, so that its exit can
// be waited for without racing the reads of its output. What the process
// writes to stdout is read through a FrameReader: a line that is not a
// JSON-RPC message, or is over maxMessage bytes, is shown on stderr and
// skipped instead of ending the connection (see stray).
func (d *Downstream) spawn(argv []string, stderr *lineWriter, maxMessage int) (mcp.Transport, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	d.cmd = exec.Command(argv[0], argv[1:]...)
	d.cmd.Stdin, d.cmd.Stdout = inR, outW
	if stderr != nil {
		d.cmd.Stderr = stderr
		// A grandchild still holding the stderr pipe (npx's node) must
		// not keep Wait from returning once the server itself exited.
		d.cmd.WaitDelay = stderrDrain
	}
	err = d.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	d.stdin = inW
	d.pipe = &pipeWriter{f: inW, wrote: make(chan struct{}, 1)}
	go func() {
		d.waitErr = d.cmd.Wait()
		if stderr != nil {
			stderr.flush()
		}
		close(d.exited)
	}()
	// The FrameReader enforces maxMessage; the SDK's own frame limit (16
	// MiB, and counted over its read-ahead) is lifted.
	out := NewFrameReader(outR, maxMessage, stray(stderr, maxMessage))
	out.Divert = d.divert
	out.Done = d.outputEnded
	return &mcp.IOTransport{Reader: out, Writer: d.pipe, MaxLineLength: -1}, nil
}

// stray returns what a downstream's FrameReader does with a line of the
// server's stdout it did not pass on: the line (its first KiB) goes to
// the server's stderr writer, if any, and is skipped. A response to one
// of the proxy's requests — an object with an id and no method — that is
// too large or malformed is answered in its place with a JSON-RPC error
// for that id, so the call fails at once, saying why, instead of waiting
// for an answer that will not come.
func stray(stderr *lineWriter, limit int) func(*RejectedLine) []byte {
	return func(l *RejectedLine) []byte {
		var why string
		switch {
		case l.TooLarge:
			why = fmt.Sprintf("the server's response is %s, over the %s limit on a message", SizeText(l.Size), SizeText(int64(limit)))
			if stderr != nil {
				fmt.Fprintf(stderr, "stdout: a message of %s, over the %s limit, was skipped: %s…\n", SizeText(l.Size), SizeText(int64(limit)), termtext.Line(string(l.Line[:min(len(l.Line), 100)])))
			}
		default:
			why = fmt.Sprintf("the server's response is not a JSON-RPC message: %v", l.Err)
			if stderr != nil {
				text, more := l.Line, ""
				if len(text) > headSize {
					text, more = text[:headSize], fmt.Sprintf("… (%s)", SizeText(l.Size))
				}
				text = []byte(termtext.Line(string(text)))
				if errors.Is(l.Err, ErrNotJSON) {
					fmt.Fprintf(stderr, "stdout, not JSON-RPC, skipped: %s%s\n", text, more)
				} else {
					fmt.Fprintf(stderr, "stdout, not a JSON-RPC message (%v), skipped: %s%s\n", l.Err, text, more)
				}
			}
		}
		if l.ID != nil && !l.Method {
			return ErrorResponse(l.ID, jsonrpc.CodeInternalError, why)
		}
		return nil
	}
}

// limit returns ctx bounded by the call limit, and the func that releases
// it. A call with a progress token gets a fresh limit with each progress
// notification for it (see progressed).
func (d *Downstream) limit(ctx context.Context, token any) (context.Context, func()) {
	if d.callTimeout <= 0 {
		return ctx, func() {}
	}
	lctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(d.callTimeout, func() { cancel(&CallTimeoutError{Limit: d.callTimeout}) })
	key, keyed := progressKey(token)
	if !keyed {
		key = fmt.Sprintf("t%p", timer) // held too, for pauseLimits
	}
	d.limitMu.Lock()
	d.limits[key] = timer
	d.limitMu.Unlock()
	return lctx, func() {
		timer.Stop()
		d.limitMu.Lock()
		if d.limits[key] == timer {
			delete(d.limits, key)
		}
		d.limitMu.Unlock()
		cancel(nil)
	}
}

// progressed restarts the limit of the call with the given progress
// token, if one is running.
func (d *Downstream) progressed(token any) {
	key, ok := progressKey(token)
	if !ok {
		return
	}
	d.limitMu.Lock()
	if timer := d.limits[key]; timer != nil {
		timer.Reset(d.callTimeout)
	}
	d.limitMu.Unlock()
}

// progressKey returns a map key for a progress token (a string or a
// number, however decoded), and false for any other value.
func progressKey(token any) (string, bool) {
	switch v := token.(type) {
	case string:
		return "s" + v, true
	case float64:
		return "n" + strconv.FormatFloat(v, 'f', -1, 64), true
	case int64:
		return "n" + strconv.FormatInt(v, 10), true
	case int:
		return "n" + strconv.Itoa(v), true
	case json.Number:
		return "n" + v.String(), true
	}
	return "", false
}

// startFailure explains why the handshake or the first listing failed;
// the process has been stopped.
func (d *Downstream) startFailure(timedOut bool, limit time.Duration, err error) string {
	if timedOut {
		return fmt.Sprintf("the server did not finish the MCP handshake within %v", limit)
	}
	if d.waitErr != nil || d.cmd.ProcessState.Exited() {
		return fmt.Sprintf("the server exited (%s) before it finished starting: %v", exitText(d.waitErr), err)
	}
	return fmt.Sprintf("the MCP handshake failed: %v", err)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// list fetches the server's tools (keeping their exact JSON), resources,
// resource templates and prompts.
func (d *Downstream) list(ctx context.Context) error {
	cctx, cp := withCapture(ctx)
	defer d.tap.release(cp)
	for t, err := range d.session.Tools(cctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		d.tools = append(d.tools, t)
	}
	d.rawTools = map[string]json.RawMessage{}
	for _, page := range cp.results() {
		var res struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(page, &res) != nil {
			continue
		}
		for _, raw := range res.Tools {
			var named struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &named) == nil {
				d.rawTools[named.Name] = raw
			}
		}
	}
	caps := d.session.InitializeResult().Capabilities
	var err error
	if caps != nil && caps.Resources != nil {
		if d.resources, err = listAll(d, d.session.Resources(ctx, nil), "resources", "resources/list", "resources"); err != nil {
			return err
		}
		if d.templates, err = listAll(d, d.session.ResourceTemplates(ctx, nil), "resources", "resources/templates/list", "resource templates"); err != nil {
			return err
		}
	}
	if caps != nil && caps.Prompts != nil {
		if d.prompts, err = listAll(d, d.session.Prompts(ctx, nil), "prompts", "prompts/list", "prompts"); err != nil {
			return err
		}
	}
	return nil
}

// listAll reads one of the server's lists (what, for the error) to its
// end. A server that refuses the method although it declared the
// capability is noted (refusedList) and keeps what it listed before.
func listAll[T any](d *Downstream, pages iter.Seq2[T, error], capability, method, what string) ([]T, error) {
	var out []T
	for x, err := range pages {
		if refused(err) {
			d.refusedList(capability, method)
			break
		} else if err != nil {
			return out, fmt.Errorf("listing %s: %w", what, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// gone returns why the server can no longer be called, or nil.
func (d *Downstream) gone() error {
	select {
	case <-d.exited:
		return fmt.Errorf("it exited (%s)", exitText(d.waitErr))
	default:
		return nil
	}
}

// fault wraps an error of a call to the server made with ctx. A call cut
// off by its limit says so; when the connection broke because the process
// died, it says that (waiting briefly for the exit to be observed).
func (d *Downstream) fault(ctx context.Context, err error) error {
	if d.remote != nil {
		return d.remoteFault(ctx, err)
	}
	var limit *CallTimeoutError
	if errors.As(context.Cause(ctx), &limit) {
		return &DownstreamError{Index: d.Index, Name: d.Name, Err: limit}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		select {
		case <-d.exited:
			err = fmt.Errorf("it exited (%s)", exitText(d.waitErr))
		case <-time.After(time.Second):
			err = fmt.Errorf("its connection closed: %w", err)
		}
	}
	return &DownstreamError{Index: d.Index, Name: d.Name, Err: err}
}

// close ends the session (closing the server's stdin), then waits for the
// process to exit, killing it after a grace period.
func (d *Downstream) close() {
	d.closeOnce.Do(func() {
		if d.remote != nil {
			d.closeRemote()
			return
		}
		if n := d.cancelled.Load(); n > 0 && d.pipe != nil {
			d.pipe.awaitCancels(n, cancelWait)
		}
		if d.session != nil {
			d.session.Close()
		}
		d.stdin.Close()
		select {
		case <-d.exited:
		case <-time.After(stopGrace):
			d.cmd.Process.Kill()
			<-d.exited
		}
	})
}

// DownstreamError is a call that failed because of its downstream: the
// server exited, its connection broke, or it refused the request.
type DownstreamError struct {
	// Index and Name identify the downstream, as in Downstream.
	Index int
	Name  string
	// Err is what went wrong.
	Err error
}

// Error names the downstream and what went wrong.
func (e *DownstreamError) Error() string {
	return fmt.Sprintf("downstream %d (%s) failed: %v", e.Index, e.Name, e.Err)
}

// Unwrap returns Err.
func (e *DownstreamError) Unwrap() error { return e.Err }

// CallTimeoutError is a call the downstream did not answer within its
// limit (Options.CallTimeout).
type CallTimeoutError struct {
	Limit time.Duration
}

// Error names the limit.
func (e *CallTimeoutError) Error() string {
	return "no answer within the " + durationText(e.Limit) + " call limit"
}

// durationText prints d in seconds when it is at least one ("60s",
// "1.5s", "90s"), else as time.Duration does ("500ms").
func durationText(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}
