package agentcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentRoundTrips: for each agent's config, install then uninstall
// gives back the file byte for byte; everything outside the wrapped
// servers' command and args — comments, unknown keys, spacing — is the
// same bytes after install; the rewritten file parses the way the agent
// parses it.
func TestAgentRoundTrips(t *testing.T) {
	for _, tt := range []struct{ agent, file string }{
		{"gemini", "gemini.json"},
		{"cursor", "cursor.json"},
		{"claude", "project.json"},
	} {
		t.Run(tt.agent, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			a, _ := LookupAgent(tt.agent)
			cands := a.Configs(dir, home, func(string) string { return "" })
			cfg := cands[len(cands)-1] // the user's
			if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			original, err := os.ReadFile(filepath.Join("testdata", "configs", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg.Path, original, 0o644); err != nil {
				t.Fatal(err)
			}
			found, err := Detect(cands)
			if err != nil || found != cfg {
				t.Fatalf("Detect = %+v, %v; want %+v", found, err, cfg)
			}
			p, err := PlanInstall(found, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			if p.Wraps() == 0 {
				t.Fatal("nothing to wrap")
			}
			if _, err := Apply(p, at); err != nil {
				t.Fatal(err)
			}
			installed, _ := os.ReadFile(cfg.Path)
			parse := installed
			if a.JSONC {
				parse = blankComments(installed)
			}
			var v struct {
				MCPServers map[string]json.RawMessage `json:"mcpServers"`
			}
			if err := json.Unmarshal(parse, &v); err != nil {
				t.Fatalf("the installed config does not parse as %s reads it: %v", a.Title, err)
			}
			wrapped := 0
			for name, raw := range v.MCPServers {
				var s struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				}
				if json.Unmarshal(raw, &s) != nil || s.Command != reelierBin {
					continue
				}
				wrapped++
				if len(s.Args) != 3 || s.Args[0] != "mcp" || s.Args[1] != "--wrap" {
					t.Errorf("server %s: args %q", name, s.Args)
				}
			}
			if wrapped < p.Wraps() {
				t.Errorf("%d servers run reelier, want at least the %d wrapped", wrapped, p.Wraps())
			}
			for _, line := range strings.Split(string(original), "\n") {
				if strings.Contains(line, "command") || strings.Contains(line, "args") || strings.HasPrefix(strings.TrimSpace(line), `"`) && !strings.Contains(line, ":") || strings.Contains(line, "inside the args") {
					continue // a line of a rewritten value
				}
				if !bytes.Contains(installed, []byte(line)) {
					t.Errorf("install lost the line %q", line)
				}
			}
			again, err := PlanInstall(found, reelierBin)
			if err != nil || again.Wraps() != 0 {
				t.Errorf("a second install would wrap %d servers (%v)", again.Wraps(), err)
			}
			got, backup, err := Restore(cands)
			if err != nil || got != cfg {
				t.Fatalf("Restore = %+v, %v", got, err)
			}
			restored, _ := os.ReadFile(cfg.Path)
			if !bytes.Equal(restored, original) {
				t.Errorf("uninstall did not give back the file byte for byte:\n%s", restored)
			}
			if kept, _ := os.ReadFile(backup); !bytes.Equal(kept, original) {
				t.Error("the backup is not the original")
			}
		})
	}
}

// TestReadOnlyConfig: a config file without write permission is refused
// before anything is written — no backup, the file as it was — by
// install and uninstall alike, whoever runs them.
func TestReadOnlyConfig(t *testing.T) {
	path := copyConfig(t, "gemini.json", "settings.json")
	original, _ := os.ReadFile(path)
	cfg := Config{Path: path, Scope: ScopeUser, Agent: "gemini"}
	p, err := PlanInstall(cfg, reelierBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err = Apply(p, at)
	if err == nil || !strings.Contains(err.Error(), "settings.json is read-only (mode 0444), so nothing was changed") {
		t.Fatalf("Apply: %v", err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, original) {
		t.Error("the config changed")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
	if err := os.WriteFile(path+".backup-2026-01-01T00-00-00-000Z", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Restore([]Config{cfg}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Restore: %v", err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, original) {
		t.Error("uninstall changed the read-only config")
	}
}

// TestJSONCErrors: a broken settings file is refused at the place of the
// problem, counted in the file as it is (comments and all), and a
// comment is an error in a config whose agent does not allow them.
func TestJSONCErrors(t *testing.T) {
	tests := []struct {
		agent, text, want string
	}{
		{"gemini", "{\n  // é comment ü\n  \"a\": 1,\n  /* ☃ */ \"mcpServers\": {\"x\": {\"command\": \"y\"},}\n}\n", `:4:48: invalid character '}' looking for beginning of object key string`},
		{"gemini", "{\n  \"mcpServers\": {} /* unclosed\n", ":3:1: unexpected end of JSON input"},
		{"gemini", "{\"a\": \"no // comment\" // but this is\n,}", ":2:2: invalid character '}' looking for beginning of object key string"},
		{"cursor", "{\n  // a comment\n  \"mcpServers\": {}\n}\n", ":2:3: invalid character '/' looking for beginning of object key string"},
		{"claude", "{\n  \"mcpServers\": {} /* c */\n}\n", ":2:20: invalid character '/' after object key:value pair"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(tt.text), 0o644)
		_, err := PlanInstall(Config{Path: path, Scope: ScopeUser, Agent: tt.agent}, reelierBin)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasSuffix(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s %q: %v, want %s%s", tt.agent, tt.text, err, path, tt.want)
		}
	}
}

func TestBlankComments(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{// x\n}", "{    \n}"},
		{"{/* x\r\ny */}", "{    \r\n    }"},
		{`{"u": "http://x//y", "s": "/* not */"}`, `{"u": "http://x//y", "s": "/* not */"}`},
		{`{"q": "a\"//b"} // c`, `{"q": "a\"//b"}     `},
		{`{"e": "\\"}//x`, `{"e": "\\"}   `},
		{"{} /* open", "{}        "},
		{"/", "/"},
		{"é//ü\n", "é    \n"},
	}
	for _, tt := range tests {
		got := blankComments([]byte(tt.in))
		if string(got) != tt.want || len(got) != len(tt.in) {
			t.Errorf("blankComments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAgentConfigs(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		agent string
		env   map[string]string
		want  string
	}{
		{"claude", nil, "/p/.mcp.json /h/.claude.json"},
		{"gemini", nil, "/p/.gemini/settings.json /h/.gemini/settings.json"},
		{"gemini", map[string]string{"GEMINI_CLI_HOME": "/g"}, "/p/.gemini/settings.json /g/.gemini/settings.json"},
		{"cursor", nil, "/p/.cursor/mcp.json /h/.cursor/mcp.json"},
		{"codex", nil, "/p/.codex/config.toml /h/.codex/config.toml"},
		{"codex", map[string]string{"CODEX_HOME": "/c"}, "/p/.codex/config.toml /c/config.toml"},
	}
	for _, tt := range tests {
		env = tt.env
		a, ok := LookupAgent(tt.agent)
		if !ok {
			t.Fatalf("no agent %s", tt.agent)
		}
		var paths []string
		for _, c := range a.Configs("/p", "/h", getenv) {
			paths = append(paths, filepath.ToSlash(c.Path))
			if c.Agent != tt.agent {
				t.Errorf("%s: config %s names agent %q", tt.agent, c.Path, c.Agent)
			}
		}
		if got := strings.Join(paths, " "); got != tt.want {
			t.Errorf("%s configs %q, want %q", tt.agent, got, tt.want)
		}
	}
	if _, err := AgentConfigs("windsurf"); err == nil || err.Error() != `unknown --agent "windsurf": use claude, codex, gemini or cursor` {
		t.Errorf("AgentConfigs(windsurf): %v", err)
	}
	gemini, _ := LookupAgent("gemini")
	_, err := Detect(gemini.Configs("/nonexistent/p", "/nonexistent/h", getenv))
	if err == nil || !strings.HasPrefix(err.Error(), "no Gemini CLI MCP config found (checked ") {
		t.Errorf("Detect: %v", err)
	}
}

// FuzzPlanInstallJSONC: for any settings file, install either refuses
// it or plans a file that still parses with comments allowed, in which
// every byte before the first edit is the original's, and a second plan
// over it wraps nothing.
func FuzzPlanInstallJSONC(f *testing.F) {
	for _, name := range []string{"gemini.json", "cursor.json", "project.json", "bom-crlf.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "configs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("{\"mcpServers\": {\"a\": {\"command\": \"x\" /* c */, \"args\": [/* d */]}}} // e"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(blankComments(data)) != len(data) {
			t.Fatal("blanking changed the length")
		}
		cfg := Config{Path: "settings.json", Scope: ScopeUser, Agent: "gemini"}
		p, err := planBytes(cfg, data, reelierBin)
		if err != nil {
			return
		}
		body := bytes.TrimPrefix(p.Updated, bom)
		if !json.Valid(blankComments(body)) {
			t.Fatalf("the plan for %q is not valid JSONC: %q", data, p.Updated)
		}
		if p.Wraps() == 0 {
			if !bytes.Equal(p.Updated, data) {
				t.Fatalf("nothing wrapped but the file changed: %q → %q", data, p.Updated)
			}
			return
		}
		again, err := planBytes(cfg, p.Updated, reelierBin)
		if err != nil || again.Wraps() != 0 {
			t.Fatalf("a second plan over %q: %v, %d wraps", p.Updated, err, again.Wraps())
		}
	})
}
