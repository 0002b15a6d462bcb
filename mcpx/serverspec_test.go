package mcpx

import (
	"strings"
	"testing"
)

func TestParseServer(t *testing.T) {
	tests := []struct {
		raw            string
		remote         bool
		label, command string
	}{
		{raw: "npx -y @acme/crm-mcp@1.2", label: "crm-mcp", command: "npx -y @acme/crm-mcp@1.2"},
		{raw: "https://mcp.example.com/mcp", remote: true, label: "mcp.example.com"},
		{raw: "  HTTP://127.0.0.1:8080/mcp", remote: true, label: "127.0.0.1:8080"},
		{raw: "httpie get x", label: "httpie", command: "httpie get x"},
	}
	for _, tt := range tests {
		s := ParseServer(tt.raw)
		if s.Remote() != tt.remote || s.String() != tt.raw || s.Command != tt.command {
			t.Errorf("ParseServer(%q) = %+v, want remote=%v command %q", tt.raw, s, tt.remote, tt.command)
		}
		if got := s.Label(); got != tt.label {
			t.Errorf("ParseServer(%q).Label() = %q, want %q", tt.raw, got, tt.label)
		}
		if got := ServerLabel(tt.raw); got != s.Label() {
			t.Errorf("ServerLabel(%q) = %q, want the spec's %q", tt.raw, got, s.Label())
		}
		s.Name = "named"
		if s.Label() != "named" {
			t.Errorf("a named spec is labelled %q", s.Label())
		}
	}
}

// TestServerWhere: the program, host and mock-ness a run record keeps of
// each server it ran against.
func TestServerWhere(t *testing.T) {
	tests := []struct {
		raw           string
		program, host string
		mock          bool
	}{
		{raw: "npx -y @acme/crm-mcp@1.2", program: "npx"},
		{raw: "/usr/local/bin/reelier mock traces/a-1.jsonl", program: "reelier", mock: true},
		{raw: "reelier --quiet mock a.jsonl", program: "reelier", mock: true},
		{raw: "C:/tools/reelier.exe mock a.jsonl", program: "reelier", mock: true},
		{raw: "reelier serve", program: "reelier"},
		{raw: "reelier", program: "reelier"},
		{raw: "mock-server mock", program: "mock-server"},
		{raw: "https://user:pw@mcp.example.com:8443/mcp?token=x", host: "mcp.example.com:8443"},
		{raw: `npx "unterminated`},
	}
	for _, tt := range tests {
		s := ParseServer(tt.raw)
		if s.Program() != tt.program || s.Host() != tt.host || s.IsMock() != tt.mock {
			t.Errorf("%q: program %q host %q mock %v; want %q %q %v", tt.raw, s.Program(), s.Host(), s.IsMock(), tt.program, tt.host, tt.mock)
		}
	}
}

// FuzzServerWhere: whatever a --wrap value holds, reading where a run ran
// never panics, a remote server's host never carries user information,
// and only a reelier command is ever a mock.
func FuzzServerWhere(f *testing.F) {
	for _, s := range []string{"reelier mock a.jsonl", "npx -y @acme/crm-mcp@1.2", "https://u:p@h.example:1/x?token=t", `"unterminated`, "reelier --x mock", "http://[::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		s := ParseServer(raw)
		if h := s.Host(); strings.Contains(h, "@") {
			t.Errorf("%q: host %q carries user information", raw, h)
		}
		if s.IsMock() && s.Program() != "reelier" {
			t.Errorf("%q: a mock whose program is %q", raw, s.Program())
		}
		if s.Remote() && s.Program() != "" || !s.Remote() && s.Host() != "" {
			t.Errorf("%q: program %q host %q for remote=%v", raw, s.Program(), s.Host(), s.Remote())
		}
	})
}
