package record

import (
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/reelier/reelier/redact"
)

// Credential-shaped values, assembled at run time so that no credential
// literal sits in the source.
var (
	ghToken = "ghp_" + strings.Repeat("Q7w", 12)
	skKey   = "sk-" + strings.Repeat("live9", 5)
)

func TestRedactCommand(t *testing.T) {
	r := redact.NewRedactor([]string{"CRM_SECRET"}, func(name string) (string, bool) {
		if name == "CRM_SECRET" {
			return "crm-secret-value", true
		}
		return "", false
	})
	tests := []struct {
		name, command, want string
	}{
		{"nothing secret stays as given", `npx -y "@modelcontextprotocol/server-memory"`, `npx -y "@modelcontextprotocol/server-memory"`},
		{"env assignment after env", "env GITHUB_TOKEN=" + ghToken + " npx server", "env 'GITHUB_TOKEN=«redacted»' npx server"},
		{"env assignment of a harmless-looking value", "env region=eu-west-1 srv", "env 'region=«redacted»' srv"},
		{"env options before the assignments", "env -i HOME=/tmp PATH=/bin srv --port 1", "env -i 'HOME=«redacted»' 'PATH=«redacted»' srv --port 1"},
		{"program arguments after env's program", "env A=1 srv mode=fast", "env 'A=«redacted»' srv mode=fast"},
		{"leading assignment", "API_TOKEN=abcdef srv", "'API_TOKEN=«redacted»' srv"},
		{"upper-case assignment anywhere", "srv --flag DB_PASS=hunter2", "srv --flag 'DB_PASS=«redacted»'"},
		{"docker -e", "docker run -i --rm -e token=abc123 ghcr.io/x/server", "docker run -i --rm -e 'token=«redacted»' ghcr.io/x/server"},
		{"docker --env=", "docker run --env=token=abc123 img", "docker run '--env=token=«redacted»' img"},
		{"credential flag with a separate value", "srv --api-key plainvalue99", "srv --api-key '«redacted»'"},
		{"credential flag with =", "srv --token=plainvalue99 --port=8080", "srv '--token=«redacted»' --port=8080"},
		{"sk- key anywhere", "srv --key-file x " + skKey, "srv --key-file x '«redacted»'"},
		{"sk- key after a flag", "srv --api " + skKey, "srv --api '«redacted»'"},
		{"named secret", "srv --crm crm-secret-value", "srv --crm '«redacted:CRM_SECRET»'"},
		{"URL password", "srv --db postgres://ann:pw12345678@db/x", "srv --db 'postgres://ann:«redacted»@db/x'"},
		{"empty assignment has nothing to blank", "env A= srv", "env A= srv"},
		{"unbalanced quote is redacted as text", `srv "` + skKey, `srv "«redacted»`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redactCommand(r, tt.command)
			if got != tt.want {
				t.Errorf("redactCommand(%q)\n got %q\nwant %q", tt.command, got, tt.want)
			}
			if strings.Contains(got, ghToken) || strings.Contains(got, skKey) || strings.Contains(got, "crm-secret-value") {
				t.Errorf("a secret survived: %q", got)
			}
			if got != tt.command {
				if _, err := shlex.Split(got); err != nil && !strings.HasPrefix(tt.name, "unbalanced") {
					t.Errorf("the redacted command does not split: %v", err)
				}
			}
		})
	}
}

func TestServerName(t *testing.T) {
	tests := []struct {
		info, command string
		want          string
	}{
		{"memory-server", "npx -y @modelcontextprotocol/server-memory", "memory-server"},
		{"example-servers/everything", "npx -y @modelcontextprotocol/server-everything", "everything"},
		{"", "npx -y @modelcontextprotocol/server-memory@1.2.3", "server-memory"},
		{"", "docker run -i --rm -e A=1 ghcr.io/github/github-mcp-server:latest", "github-mcp-server"},
		{"", "env A=1 /usr/local/bin/crm-mcp --region eu", "crm-mcp"},
		{"", "python3 -u servers/notes.py", "notes"},
		{"  ", "''", "server-3"},
		{"My Server (beta)", "x", "My-Server-beta"},
	}
	for _, tt := range tests {
		if got := serverName(tt.info, tt.command, 2); got != tt.want {
			t.Errorf("serverName(%q, %q) = %q, want %q", tt.info, tt.command, got, tt.want)
		}
	}
	taken := map[string]bool{}
	var got []string
	for _, n := range []string{"a", "a", "b", "a"} {
		got = append(got, uniqueName(n, taken))
	}
	if strings.Join(got, " ") != "a a-2 b a-3" {
		t.Errorf("uniqueName: %v", got)
	}
}
