package mcpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/google/shlex"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// downstreamProtocol is the MCP revision the proxy speaks to downstreams:
// the newest one with the initialize handshake, which every current server
// answers. (The agent side negotiates its own revision with the proxy.)
const downstreamProtocol = "2025-11-25"

// stopGrace is how long Close waits for a downstream to exit after its
// stdin is closed before killing it.
const stopGrace = 3 * time.Second

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

	tools     []*mcp.Tool
	rawTools  map[string]json.RawMessage // the exact definitions, by the server's names
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt

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
	if err := d.gone(); err != nil {
		return nil, d.fault(err)
	}
	res, err := d.session.ReadResource(ctx, params)
	if err != nil {
		return nil, d.fault(err)
	}
	return res, nil
}

// GetPrompt gets a prompt from the server by the server's own name for it.
func (d *Downstream) GetPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	if err := d.gone(); err != nil {
		return nil, d.fault(err)
	}
	res, err := d.session.GetPrompt(ctx, params)
	if err != nil {
		return nil, d.fault(err)
	}
	return res, nil
}

// startDownstream starts one --wrap command and completes the MCP
// handshake with it. The process inherits the environment; its stderr goes
// to stderr, line by line (nil discards it).
func startDownstream(ctx context.Context, index int, command string, stderr *lineWriter, opts Options) (*Downstream, error) {
	argv, err := shlex.Split(command)
	if err != nil {
		return nil, fmt.Errorf("--wrap %q: %v", command, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("--wrap %q: the command is empty", command)
	}
	d := &Downstream{Index: index, Name: command, exited: make(chan struct{})}
	conn, err := d.spawn(argv, stderr)
	if err != nil {
		return nil, fmt.Errorf("--wrap %q: %v", command, err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "reelier", Version: opts.Version}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			if opts.OnProgress != nil {
				opts.OnProgress(ctx, req.Params)
			}
		},
	})
	tt := &tapTransport{inner: conn}
	hctx, cancel := context.WithTimeout(ctx, opts.startTimeout())
	defer cancel()
	d.session, err = client.Connect(hctx, tt, &mcp.ClientSessionOptions{ProtocolVersion: downstreamProtocol})
	if err == nil {
		d.tap = tt.conn
		err = d.list(hctx)
	}
	if err != nil {
		timedOut := hctx.Err() != nil
		d.close()
		return nil, fmt.Errorf("--wrap %q: %s", command, d.startFailure(timedOut, opts.startTimeout(), err))
	}
	return d, nil
}

// spawn starts the process on pipes the proxy owns, so that its exit can
// be waited for without racing the reads of its output.
func (d *Downstream) spawn(argv []string, stderr *lineWriter) (mcp.Transport, error) {
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
	go func() {
		d.waitErr = d.cmd.Wait()
		if stderr != nil {
			stderr.flush()
		}
		close(d.exited)
	}()
	return &mcp.IOTransport{Reader: outR, Writer: inW}, nil
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
	if caps != nil && caps.Resources != nil {
		for r, err := range d.session.Resources(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing resources: %w", err)
			}
			d.resources = append(d.resources, r)
		}
		for t, err := range d.session.ResourceTemplates(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing resource templates: %w", err)
			}
			d.templates = append(d.templates, t)
		}
	}
	if caps != nil && caps.Prompts != nil {
		for p, err := range d.session.Prompts(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing prompts: %w", err)
			}
			d.prompts = append(d.prompts, p)
		}
	}
	return nil
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

// fault wraps an error of a call to the server. When the connection broke
// because the process died, it says so (waiting briefly for the exit to be
// observed).
func (d *Downstream) fault(err error) error {
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
