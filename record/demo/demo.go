// Package demo is the MCP server `reelier init` records its first
// workflow against: a small package registry that lives inside the
// reelier binary, so the first run needs no network, no account and no
// server of the user's.
//
// It has two read-only tools whose answers never change, so a replay of
// what was recorded always passes: lookup_package gives a package's
// latest release id, and get_release takes that id — the dataflow the
// compiler turns into a bind.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo's package and release.
const (
	Package   = "reelier-demo"
	ReleaseID = "rel_7Hq2Xv"
)

// Tool names.
const (
	LookupTool  = "lookup_package"
	ReleaseTool = "get_release"
)

// LookupIn is the input of lookup_package.
type LookupIn struct {
	Name string `json:"name" jsonschema:"the package name, e.g. reelier-demo"`
}

// ReleaseIn is the input of get_release.
type ReleaseIn struct {
	ReleaseID string `json:"release_id" jsonschema:"a release id from lookup_package"`
}

type pkg struct {
	Name          string `json:"name"`
	Latest        string `json:"latest"`
	LatestRelease string `json:"latest_release"`
	License       string `json:"license"`
}

type release struct {
	ReleaseID string   `json:"release_id"`
	Package   string   `json:"package"`
	Version   string   `json:"version"`
	Notes     []string `json:"notes"`
}

var (
	packages = map[string]pkg{
		Package: {Name: Package, Latest: "1.4.0", LatestRelease: ReleaseID, License: "AGPL-3.0"},
	}
	releases = map[string]release{
		ReleaseID: {ReleaseID: ReleaseID, Package: Package, Version: "1.4.0", Notes: []string{
			"Replays are byte-identical.",
			"Every step carries an assert.",
		}},
	}
)

// NewServer returns the demo registry's MCP server.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "reelier-demo-registry", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "A demo package registry built into reelier, for `reelier init`.",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: LookupTool, Description: "Look up a package: its latest version and the id of its latest release.", Annotations: readOnly}, lookup)
	mcp.AddTool(s, &mcp.Tool{Name: ReleaseTool, Description: "Get a release by its id: version and release notes.", Annotations: readOnly}, getRelease)
	return s
}

// Serve serves the demo registry on r and w (a child process's stdin and
// stdout) until the client leaves.
func Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	return NewServer().Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
}

func lookup(_ context.Context, _ *mcp.CallToolRequest, in LookupIn) (*mcp.CallToolResult, any, error) {
	p, ok := packages[in.Name]
	if !ok {
		return errorResult(fmt.Sprintf("no package %q in the demo registry (it has %q)", in.Name, Package)), nil, nil
	}
	return jsonResult(p), nil, nil
}

func getRelease(_ context.Context, _ *mcp.CallToolRequest, in ReleaseIn) (*mcp.CallToolResult, any, error) {
	r, ok := releases[in.ReleaseID]
	if !ok {
		return errorResult(fmt.Sprintf("no release %q in the demo registry", in.ReleaseID)), nil, nil
	}
	return jsonResult(r), nil, nil
}

func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResult(err.Error())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}
