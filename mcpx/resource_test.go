package mcpx_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/mcpx"
)

// TestResultResource: what counts as the resource a result names.
func TestResultResource(t *testing.T) {
	tests := []struct {
		name    string
		content []mcp.Content
		want    string
	}{
		{"none", []mcp.Content{&mcp.TextContent{Text: `{"id":"x","uri":"file:///nope"}`}}, ""},
		{"link", []mcp.Content{&mcp.TextContent{Text: "made"}, &mcp.ResourceLink{URI: "file:///a.txt", Name: "a"}}, "file:///a.txt"},
		{"first link wins", []mcp.Content{&mcp.ResourceLink{URI: "x://1", Name: "1"}, &mcp.ResourceLink{URI: "x://2", Name: "2"}}, "x://1"},
		{"link before embedded", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x://e", Text: "t"}}, &mcp.ResourceLink{URI: "x://l", Name: "l"}}, "x://l"},
		{"embedded", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x://e", Text: "t"}}}, "x://e"},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		if got := mcpx.ResultResource(&mcp.CallToolResult{Content: tt.content}); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if mcpx.ResultResource(nil) != "" {
		t.Error("nil result names a resource")
	}
}
