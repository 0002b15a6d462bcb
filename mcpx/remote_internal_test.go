package mcpx

import (
	"net/url"
	"testing"
)

func TestUnencrypted(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://127.0.0.1:3001/mcp": false, "http://localhost/mcp": false, "http://[::1]:80/mcp": false,
		"https://mcp.example.com/mcp": false, "http://mcp.example.com/mcp": true, "http://10.0.0.5/mcp": true,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := unencrypted(u); got != want {
			t.Errorf("unencrypted(%s) = %v; want %v", raw, got, want)
		}
	}
}
