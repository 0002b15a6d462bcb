package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/record"
)

// TraceName is the name the demo recording is made under.
const TraceName = "reelier-init-demo"

// Steps are the demo workflow's steps, as narrated with reelier_note.
var Steps = []string{
	"Look up the " + Package + " package in the demo registry",
	"Fetch its latest release notes, using the release id from step 1",
}

// RecordOptions configure Record.
type RecordOptions struct {
	// Server is the command line that starts the demo server, as
	// `reelier mcp --wrap` would be given it.
	Server string
	// TraceDir is where the trace goes.
	TraceDir string
	// Version is reelier's version, reported over MCP.
	Version string
	// Stderr receives the server's and the recorder's warnings; nil
	// discards them.
	Stderr io.Writer
}

// Record records the demo workflow through the real recorder: it starts
// the recording proxy of package record in front of the demo server (a
// child process, exactly as `reelier mcp --wrap` starts one) and drives it
// as an agent would, over MCP — start a recording, narrate and make each
// call, stop. The second call sends the release id the first returned.
// It returns the trace file's path.
func Record(ctx context.Context, opts RecordOptions) (string, error) {
	before, err := traceFiles(opts.TraceDir)
	if err != nil {
		return "", err
	}
	p, err := record.Start(ctx, []string{opts.Server}, record.Options{TraceDir: opts.TraceDir, Version: opts.Version, Stderr: opts.Stderr})
	if err != nil {
		return "", err
	}
	agentSide, proxySide := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	sctx, stop := context.WithCancel(ctx)
	go func() { served <- p.Serve(sctx, proxySide) }()
	err = drive(ctx, agentSide, opts.Version)
	stop()
	<-served
	if cerr := p.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return newTrace(opts.TraceDir, before)
}

// drive is the agent's side of the recording.
func drive(ctx context.Context, t mcp.Transport, version string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "reelier-init", Version: version}, nil)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("connecting to the recorder: %w", err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		text := resultText(res)
		if res.IsError {
			return "", fmt.Errorf("%s: %s", name, text)
		}
		return text, nil
	}
	if _, err := call(mcpx.StartRecording, map[string]any{"name": TraceName}); err != nil {
		return err
	}
	if _, err := call(mcpx.Note, map[string]any{"text": Steps[0]}); err != nil {
		return err
	}
	found, err := call(LookupTool, map[string]any{"name": Package})
	if err != nil {
		return err
	}
	var p pkg
	if err := json.Unmarshal([]byte(found), &p); err != nil {
		return fmt.Errorf("%s answered %q: %w", LookupTool, found, err)
	}
	if _, err := call(mcpx.Note, map[string]any{"text": Steps[1]}); err != nil {
		return err
	}
	if _, err := call(ReleaseTool, map[string]any{"release_id": p.LatestRelease}); err != nil {
		return err
	}
	_, err = call(mcpx.StopRecording, map[string]any{})
	return err
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// traceFiles lists the demo's trace files in dir.
func traceFiles(dir string) (map[string]bool, error) {
	matches, err := filepath.Glob(filepath.Join(dir, TraceName+"-*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, m := range matches {
		out[m] = true
	}
	return out, nil
}

// newTrace returns the demo trace file that was not in before.
func newTrace(dir string, before map[string]bool) (string, error) {
	after, err := traceFiles(dir)
	if err != nil {
		return "", err
	}
	for p := range after {
		if !before[p] {
			if _, err := os.Stat(p); err != nil {
				return "", err
			}
			return p, nil
		}
	}
	return "", errors.New("the recorder wrote no trace")
}
