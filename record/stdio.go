package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/exitstatus"
)

// ServeStdio serves the started proxy to one agent on in and out until
// the agent hangs up or ctx ends, then stops it. When logPath is set,
// every message the SDK's session exchanges is appended to that file
// (logName, the variable that named it, labels a failure to open it).
// Its errors carry the exit status (internal/exitstatus).
func (p *Proxy) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, logPath, logName string) error {
	t := p.Transport(in, out)
	if logPath != "" {
		log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			p.Close()
			return &exitstatus.Error{Code: exitstatus.Failed, Err: fmt.Errorf("%s: %w", logName, err)}
		}
		defer log.Close()
		t = &mcp.LoggingTransport{Transport: t, Writer: log}
	}
	serveErr := p.Serve(ctx, t)
	if closeErr := p.Close(); closeErr != nil {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: closeErr}
	}
	if serveErr != nil && !errors.Is(serveErr, io.EOF) && ctx.Err() == nil {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: serveErr}
	}
	return nil
}
