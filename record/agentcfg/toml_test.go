package agentcfg

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/pelletier/go-toml/v2"
	"github.com/reelier/reelier/testkit/testutil"
)

var codexConfigs = []string{"codex-user.toml", "codex-dotted-crlf.toml", "codex-none.toml"}

// TestPlanInstallTOML pins, per Codex config, what install does with each
// server and the rewritten file; a second plan over the result changes
// nothing.
func TestPlanInstallTOML(t *testing.T) {
	for _, file := range codexConfigs {
		t.Run(file, func(t *testing.T) {
			path := copyConfig(t, file, "config.toml")
			p, err := PlanInstall(Config{Path: path, Scope: ScopeUser}, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for _, ch := range p.Changes {
				fmt.Fprintln(&b, ch.Describe())
			}
			fmt.Fprintf(&b, "-- %d to wrap; rewritten config --\n", p.Wraps())
			b.Write(p.Updated)
			testutil.Golden(t).Assert(t, strings.TrimSuffix(file, ".toml"), b.Bytes())
			if err := os.WriteFile(path, p.Updated, 0o640); err != nil {
				t.Fatal(err)
			}
			again, err := PlanInstall(Config{Path: path, Scope: ScopeUser}, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			if again.Wraps() != 0 || !bytes.Equal(again.Updated, p.Updated) {
				t.Errorf("a second install would change the config again:\n%s", again.Updated)
			}
		})
	}
}

// TestTOMLRoundTrip: in the rewritten config every wrapped server runs
// reelier mcp --wrap with a command line that splits back into its
// original command and args; every other key of the document decodes to
// what it was (comments and unknown keys are in the golden files); Apply
// then Restore gives the file back byte for byte, and installing twice
// writes nothing the second time.
func TestTOMLRoundTrip(t *testing.T) {
	for _, file := range codexConfigs {
		t.Run(file, func(t *testing.T) {
			path := copyConfig(t, file, "config.toml")
			original, _ := os.ReadFile(path)
			cfg := Config{Path: path, Scope: ScopeUser}
			p, err := PlanInstall(cfg, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			var before, after map[string]any
			if err := toml.Unmarshal(p.Original, &before); err != nil {
				t.Fatal(err)
			}
			if err := toml.Unmarshal(p.Updated, &after); err != nil {
				t.Fatal(err)
			}
			for _, ch := range p.Changes {
				if ch.Action != ActionWrap {
					continue
				}
				old := server(before, ch.Server)
				now := server(after, ch.Server)
				args, _ := now["args"].([]any)
				if now["command"] != reelierBin || len(args) != 3 || args[0] != "mcp" || args[1] != "--wrap" {
					t.Errorf("%s: not wrapped: %v", ch.Server, now)
					continue
				}
				argv, err := shlex.Split(args[2].(string))
				if err != nil {
					t.Fatal(err)
				}
				want := []any{old["command"]}
				if a, ok := old["args"].([]any); ok {
					want = append(want, a...)
				}
				if fmt.Sprintf("%q", argv) != fmt.Sprintf("%q", want) {
					t.Errorf("%s: --wrap %q splits to %q, want %q", ch.Server, args[2], argv, want)
				}
				for _, m := range []map[string]any{old, now} {
					delete(m, "command")
					delete(m, "args")
				}
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("keys other than the wrapped command and args changed:\nbefore %v\nafter  %v", before, after)
			}
			if p.Wraps() == 0 {
				return
			}
			backup, err := Apply(p, at)
			if err != nil {
				t.Fatal(err)
			}
			again, err := PlanInstall(cfg, reelierBin)
			if err != nil || again.Wraps() != 0 {
				t.Fatalf("a second install: %v, %d wraps", err, again.Wraps())
			}
			restored, from, err := Restore([]Config{cfg})
			if err != nil || restored != cfg || from != backup {
				t.Fatalf("Restore = %v %s %v", restored, from, err)
			}
			if data, _ := os.ReadFile(path); !bytes.Equal(data, original) {
				t.Errorf("uninstall did not give the file back byte for byte:\n%s", data)
			}
		})
	}
}

// server is one server's table of a decoded Codex config.
func server(doc map[string]any, name string) map[string]any {
	servers, _ := doc["mcp_servers"].(map[string]any)
	s, _ := servers[name].(map[string]any)
	return s
}

// TestCorruptTOML: a config that is not valid TOML is refused at the line
// and column of the problem, and left as it was.
func TestCorruptTOML(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unclosed table", "model = \"o3\"\n[mcp_servers.a\ncommand = \"x\"\n", ":2:"},
		{"unterminated string", "[mcp_servers.a]\ncommand = \"npx\nargs = []\n", ":2:"},
		{"duplicate key", "[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", ":3:1:"},
		{"characters, not bytes", "[mcp_servers.\"é\"]\ncommand = \"ü\" npx\n", ":2:15:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			os.WriteFile(path, []byte(tt.text), 0o600)
			_, err := PlanInstall(Config{Path: path, Scope: ScopeUser}, reelierBin)
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), path+tt.want) {
				t.Fatalf("got %v, want %s%s…", err, path, tt.want)
			}
			_, err = PlanFor([]Config{{Path: path, Scope: ScopeUser}}, func() (string, error) { return reelierBin, nil })
			if err == nil || !strings.Contains(err.Error(), "not valid TOML") {
				t.Errorf("PlanFor: %v", err)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.text {
				t.Error("the config changed")
			}
		})
	}
}

// TestReadOnlyTOMLConfig: a Codex config.toml the user made read-only is refused
// with a message that says so, and left as it was, with no backup.
func TestReadOnlyTOMLConfig(t *testing.T) {
	path := copyConfig(t, "codex-user.toml", "config.toml")
	original, _ := os.ReadFile(path)
	p, err := PlanInstall(Config{Path: path, Scope: ScopeUser}, reelierBin)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o444)
	_, err = Apply(p, at)
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Apply: %v", err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, original) {
		t.Error("the config changed")
	}
	if b, _ := Backups(path); len(b) != 0 {
		t.Errorf("backups written: %v", b)
	}
}

func TestCodexCandidates(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		dir, home string
		env       map[string]string
		want      string
	}{
		{"/src/app", "/home/ann", nil, "[{/src/app/.codex/config.toml project codex} {/home/ann/.codex/config.toml user codex}]"},
		{"/src/app", "/home/ann", map[string]string{"CODEX_HOME": "/srv/codex"}, "[{/src/app/.codex/config.toml project codex} {/srv/codex/config.toml user codex}]"},
		{"/src/app", "", nil, "[{/src/app/.codex/config.toml project codex}]"},
		{"/home/ann", "/home/ann", nil, "[{/home/ann/.codex/config.toml project codex}]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(CodexCandidates(tt.dir, tt.home, env(tt.env))); got != tt.want {
			t.Errorf("CodexCandidates(%q, %q, %v) = %s, want %s", tt.dir, tt.home, tt.env, got, tt.want)
		}
	}
}

func TestTOMLString(t *testing.T) {
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "tab\there\nnew\x01\x7f", "naïve ☃"} {
		var v struct{ S string }
		if err := toml.Unmarshal([]byte("S = "+tomlString(s)), &v); err != nil || v.S != s {
			t.Errorf("tomlString(%q) = %s reads back as %q (%v)", s, tomlString(s), v.S, err)
		}
	}
}

// FuzzPlanInstallTOML: no Codex config makes planning panic; a plan's
// rewrite is valid TOML in which every key but the wrapped servers'
// command and args decodes as before, and planning it again changes
// nothing.
func FuzzPlanInstallTOML(f *testing.F) {
	for _, name := range codexConfigs {
		data, _ := os.ReadFile(filepath.Join("testdata", "configs", name))
		f.Add(data)
	}
	f.Add([]byte("[mcp_servers.a]\ncommand = \"x\""))
	f.Add([]byte("mcp_servers = { a = { command = 'x', args = [] } }\n"))
	f.Add([]byte("[mcp_servers.a]\ncommand = \"x\"\nargs = [ # c\n  'y', # d\n]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, data, 0o600)
		cfg := Config{Path: path, Scope: ScopeUser}
		p, err := PlanInstall(cfg, reelierBin)
		if err != nil {
			return
		}
		var before, after map[string]any
		if toml.Unmarshal(p.Original, &before) != nil || toml.Unmarshal(p.Updated, &after) != nil {
			t.Fatalf("the rewrite of %q is not TOML: %q", data, p.Updated)
		}
		for _, ch := range p.Changes {
			if ch.Action == ActionWrap {
				for _, m := range []map[string]any{server(before, ch.Server), server(after, ch.Server)} {
					delete(m, "command")
					delete(m, "args")
				}
			}
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the rewrite of %q changed other keys: %q", data, p.Updated)
		}
		os.WriteFile(path, p.Updated, 0o600)
		again, err := PlanInstall(cfg, reelierBin)
		if err != nil || again.Wraps() != 0 {
			t.Fatalf("planning the rewrite of %q again: %v, %d wraps", data, err, again.Wraps())
		}
	})
}
