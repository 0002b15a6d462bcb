package mcpx

import (
	"strings"
	"sync"
	"testing"

	"github.com/reelier/reelier/redact"
)

func TestServerLabel(t *testing.T) {
	tests := []struct{ command, want string }{
		{"crm-mcp --region eu", "crm-mcp"},
		{"/usr/local/bin/notes-mcp", "notes-mcp"},
		{"npx -y @acme/crm-mcp", "crm-mcp"},
		{"npx -y @modelcontextprotocol/server-memory@2025.8.4", "server-memory"},
		{"uvx mcp-server-git --repository .", "mcp-server-git"},
		{"uv run weather.py", "weather"},
		{"python3 -m mcp_server_time", "mcp_server_time"},
		{"node /srv/weather/build/index.js", "weather"},
		{"node server.js", "server"},
		{"docker run -i --rm mcp/github", "github"},
		{"env TOKEN=x crm-mcp", "crm-mcp"},
		{"go run ./cmd/reelier init --demo-server", "reelier"},
		{`'/tmp/my dir/reelier' init --demo-server`, "reelier"},
		{"./crm.exe --port 0", "crm"},
		{"npx", "npx"},
		{"'unterminated", "'unterminated"},
	}
	for _, tt := range tests {
		if got := ServerLabel(tt.command); got != tt.want {
			t.Errorf("ServerLabel(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

// TestLineWriter: whatever the chunks, each line comes out whole with its
// prefix; CRLF loses its CR, an over-long line is cut into prefixed
// pieces, and a last line without a line break is written by flush.
func TestLineWriter(t *testing.T) {
	long := strings.Repeat("x", maxStderrLine)
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"two lines in one write", []string{"one\ntwo\n"}, "[s] one\n[s] two\n"},
		{"a line in pieces", []string{"o", "n", "e\nt", "wo\n"}, "[s] one\n[s] two\n"},
		{"CRLF", []string{"one\r\ntwo\r\n"}, "[s] one\n[s] two\n"},
		{"empty line", []string{"\n"}, "[s] \n"},
		{"no final line break", []string{"one\ntwo"}, "[s] one\n[s] two\n"},
		{"over-long line", []string{long + "yz\n"}, "[s] " + long + "\n[s] yz\n"},
		{"over-long line in pieces", []string{long[:10], long[10:] + "y", "z\n"}, "[s] " + long + "\n[s] yz\n"},
		{"a secret is blanked", []string{"using token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n"}, "[s] using token «redacted»\n"},
		{"terminal controls are escaped", []string{"\x1b[2Jcleared\n"}, "[s] \\x1b[2Jcleared\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			w := &lineWriter{mu: &sync.Mutex{}, out: &out, prefix: []byte("[s] "), redact: redact.NewRedactor(nil, nil)}
			for _, c := range tt.chunks {
				if n, err := w.Write([]byte(c)); n != len(c) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			w.flush()
			if got := out.String(); got != tt.want {
				t.Errorf("got %d bytes %.200q…\nwant %d bytes %.200q…", len(got), got, len(tt.want), tt.want)
			}
		})
	}
}
