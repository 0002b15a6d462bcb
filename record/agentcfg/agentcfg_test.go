package agentcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/shlex"
	"github.com/reelier/reelier/testkit/testutil"
)

const reelierBin = "/usr/local/bin/reelier"

var at = time.Date(2026, 7, 19, 12, 50, 3, 123e6, time.UTC)

// copyConfig copies testdata/configs/<name> into a fresh directory.
func copyConfig(t *testing.T, name, as string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "configs", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), as)
	if err := os.WriteFile(path, data, 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanInstall pins, per config, what install does with each server
// and the rewritten file; a second plan over the result changes nothing.
func TestPlanInstall(t *testing.T) {
	cases := []struct{ file, scope, agent string }{
		{"project.json", ScopeProject, ""},
		{"user.json", ScopeUser, ""},
		{"compact.json", ScopeProject, ""},
		{"none.json", ScopeProject, ""},
		{"bom-crlf.json", ScopeProject, ""},
		{"gemini.json", ScopeUser, "gemini"},
		{"cursor.json", ScopeProject, "cursor"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := copyConfig(t, c.file, "config.json")
			p, err := PlanInstall(Config{Path: path, Scope: c.scope, Agent: c.agent}, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for _, ch := range p.Changes {
				fmt.Fprintln(&b, ch.Describe())
			}
			fmt.Fprintf(&b, "-- %d to wrap; rewritten config --\n", p.Wraps())
			b.Write(p.Updated)
			testutil.Golden(t).Assert(t, strings.TrimSuffix(c.file, ".json"), b.Bytes())
			if err := os.WriteFile(path, p.Updated, 0o640); err != nil {
				t.Fatal(err)
			}
			again, err := PlanInstall(Config{Path: path, Scope: c.scope, Agent: c.agent}, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			if again.Wraps() != 0 || !bytes.Equal(again.Updated, p.Updated) {
				t.Errorf("a second install would change the config again:\n%s", again.Updated)
			}
		})
	}
}

// TestWrapRoundTrip: the --wrap argument splits back, the way reelier
// mcp splits it, into the server's original command and args.
func TestWrapRoundTrip(t *testing.T) {
	path := copyConfig(t, "project.json", ".mcp.json")
	p, err := PlanInstall(Config{Path: path, Scope: ScopeProject}, reelierBin)
	if err != nil {
		t.Fatal(err)
	}
	type server struct {
		Command any      `json:"command"`
		Args    []string `json:"args"`
		Env     any      `json:"env"`
	}
	servers := func(data []byte) map[string]server {
		var cfg struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		out := map[string]server{}
		for name, raw := range cfg.MCPServers {
			var s server
			if json.Unmarshal(raw, &s) == nil {
				out[name] = s
			}
		}
		return out
	}
	before, after := servers(p.Original), servers(p.Updated)
	for _, ch := range p.Changes {
		if ch.Action != ActionWrap {
			continue
		}
		old, now := before[ch.Server], after[ch.Server]
		if now.Command != reelierBin || len(now.Args) != 3 || now.Args[0] != "mcp" || now.Args[1] != "--wrap" {
			t.Errorf("%s: not wrapped: %+v", ch.Server, now)
			continue
		}
		argv, err := shlex.Split(now.Args[2])
		if err != nil {
			t.Fatal(err)
		}
		want := append([]string{old.Command.(string)}, old.Args...)
		if fmt.Sprintf("%q", argv) != fmt.Sprintf("%q", want) {
			t.Errorf("%s: --wrap %q splits to %q, want %q", ch.Server, now.Args[2], argv, want)
		}
		if fmt.Sprint(now.Env) != fmt.Sprint(old.Env) {
			t.Errorf("%s: env %v, want %v", ch.Server, now.Env, old.Env)
		}
	}
}

func TestShellJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"npx", "-y", "@acme/crm-mcp"}, "npx -y @acme/crm-mcp"},
		{[]string{"srv", "a b"}, "srv 'a b'"},
		{[]string{"srv", ""}, "srv ''"},
		{[]string{"srv", "it's"}, `srv 'it'"'"'s'`},
		{[]string{"srv", `a"b\c`, "$HOME", "*"}, `srv 'a"b\c' '$HOME' '*'`},
		{[]string{"/path with space/srv", "--k=v,w"}, "'/path with space/srv' --k=v,w"},
	}
	for _, tt := range tests {
		got := ShellJoin(tt.argv)
		if got != tt.want {
			t.Errorf("ShellJoin(%q) = %s, want %s", tt.argv, got, tt.want)
		}
		back, err := shlex.Split(got)
		if err != nil || fmt.Sprintf("%q", back) != fmt.Sprintf("%q", tt.argv) {
			t.Errorf("%s splits back to %q (%v), want %q", got, back, err, tt.argv)
		}
	}
}

func TestIsWrapped(t *testing.T) {
	tests := []struct {
		program string
		args    []string
		want    bool
	}{
		{"/usr/local/bin/reelier", []string{"mcp", "--wrap", "x"}, true},
		{"reelier", []string{"mcp", "--wrap", "x", "--wrap", "y"}, true},
		{`C:\tools\reelier.exe`, []string{"mcp", "--wrap", "x"}, true},
		{"npx", []string{"-y", "reelier", "mcp", "--wrap", "x"}, true},
		{"npx", []string{"reelier@1.2.0", "mcp", "--wrap", "x"}, true},
		{"npx", []string{"-y", "@seldonframe/reelier", "mcp", "--wrap", "x"}, true},
		{"reelier", []string{"serve"}, false},
		{"reelier", []string{"--wrap", "x", "mcp"}, false},
		{"npx", []string{"-y", "other-mcp", "mcp", "--wrap", "x"}, false},
		{"npx", []string{"-y", "reelier-extra", "mcp", "--wrap", "x"}, false},
		{"mcp", []string{"--wrap", "reelier"}, false},
	}
	for _, tt := range tests {
		if got := IsWrapped(tt.program, tt.args); got != tt.want {
			t.Errorf("IsWrapped(%q, %q) = %v, want %v", tt.program, tt.args, got, tt.want)
		}
	}
}

// TestCorruptConfig: a config that is not a JSON object is refused with
// the place of the problem, and the file is left as it was.
func TestCorruptConfig(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"trailing comma", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  }\n}\n", ":4:3: invalid character '}' looking for beginning of object key string"},
		{"cut off", "{\n  \"mcpServers\": {", ":2:18: unexpected end of JSON input"},
		{"not an object", "[1, 2]", ": the file is not a JSON object"},
		{"two values", "{} {}", ": the file holds more than one JSON value"},
		{"empty", "", ":1:1: unexpected end of JSON input"},
		// Columns count characters: é, 中, 😀 and a tab are one each.
		{"after multi-byte characters", "{\"é中😀\":\t1,}", ":1:11: invalid character '}' looking for beginning of object key string"},
		{"second line", "{\n  \"é\": [1 2]\n}", ":2:11: invalid character '2' after array element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".mcp.json")
			os.WriteFile(path, []byte(tt.data), 0o644)
			_, err := PlanInstall(Config{Path: path, Scope: ScopeProject}, reelierBin)
			var pe *ParseError
			if !errors.As(err, &pe) || err.Error() != path+tt.want {
				t.Fatalf("got %v, want a *ParseError %q", err, path+tt.want)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.data {
				t.Error("the config changed")
			}
			if b, _ := Backups(path); len(b) != 0 {
				t.Errorf("backups written: %v", b)
			}
		})
	}
}

// TestPosition: a byte offset becomes a line and a column in characters;
// an offset inside a character gives that character's column.
func TestPosition(t *testing.T) {
	data := []byte("a\né中😀\tx\n")
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {4, 2, 2}, {5, 2, 2}, {7, 2, 3},
		{11, 2, 4}, {12, 2, 5}, {13, 2, 6}, {14, 3, 1}, {99, 3, 1}, {-1, 1, 1},
	}
	for _, tt := range tests {
		if line, col := position(data, tt.off); line != tt.line || col != tt.col {
			t.Errorf("position(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

// TestApply: the backup holds the original byte for byte and is written
// first; the config gets the rewrite with its permissions; a symbolic
// link is followed, not replaced.
func TestApply(t *testing.T) {
	path := copyConfig(t, "user.json", "real.json")
	link := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	original, _ := os.ReadFile(path)
	p, err := PlanInstall(Config{Path: link, Scope: ScopeUser}, reelierBin)
	if err != nil {
		t.Fatal(err)
	}
	backup, err := Apply(p, at)
	if err != nil {
		t.Fatal(err)
	}
	if want := link + ".backup-2026-07-19T12-50-03-123Z"; backup != want {
		t.Errorf("backup %s, want %s", backup, want)
	}
	if data, _ := os.ReadFile(backup); !bytes.Equal(data, original) {
		t.Error("the backup is not the original byte for byte")
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, p.Updated) {
		t.Error("the config was not rewritten")
	}
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced by a file")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("permissions %v, want 0640", info.Mode().Perm())
	}
	// The same instant again: the backup name moves on, never overwrites.
	p2, _ := PlanInstall(Config{Path: link, Scope: ScopeUser}, "/other/reelier")
	p2.Updated = append([]byte(nil), p2.Original...)
	second, err := Apply(p2, at)
	if err != nil || second != link+".backup-2026-07-19T12-50-03-124Z" {
		t.Errorf("second backup %s, %v", second, err)
	}
}

// TestApplyChanged: a config edited between plan and apply is not
// touched.
func TestApplyChanged(t *testing.T) {
	path := copyConfig(t, "project.json", ".mcp.json")
	p, err := PlanInstall(Config{Path: path, Scope: ScopeProject}, reelierBin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(`{"mcpServers":{}}`), 0o644)
	if _, err := Apply(p, at); !errors.Is(err, ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers":{}}` {
		t.Error("the config changed")
	}
	if b, _ := Backups(path); len(b) != 0 {
		t.Errorf("backups written: %v", b)
	}
}

// TestReadOnlyDir: when the backup cannot be written nothing is changed,
// and when the config cannot be written the backup is taken back; either
// way the config stays byte for byte as it was.
func TestReadOnlyDir(t *testing.T) {
	readOnly := &fs.PathError{Op: "open", Path: "x", Err: errors.New("read-only file system")}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"chmod", func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("root ignores directory permissions; the cases below fail the same calls directly")
			}
			os.Chmod(dir, 0o555)
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
		}},
		{"no backup", func(t *testing.T, dir string) {
			createTemp = func(string, string) (*os.File, error) { return nil, readOnly }
			t.Cleanup(func() { createTemp = os.CreateTemp })
		}},
		{"no rewrite", func(t *testing.T, dir string) {
			writeFile = func(string, []byte, os.FileMode) error { return readOnly }
			t.Cleanup(func() { writeFile = realWriteFile })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := copyConfig(t, "project.json", ".mcp.json")
			original, _ := os.ReadFile(path)
			p, err := PlanInstall(Config{Path: path, Scope: ScopeProject}, reelierBin)
			if err != nil {
				t.Fatal(err)
			}
			tt.setup(t, filepath.Dir(path))
			if _, err := Apply(p, at); err == nil {
				t.Fatal("Apply succeeded")
			}
			if data, _ := os.ReadFile(path); !bytes.Equal(data, original) {
				t.Error("the config changed")
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

var realWriteFile = writeFile

// TestRestore: the newest backup of the first config that has one comes
// back byte for byte and stays; with none, the error names every path.
func TestRestore(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	cands := Candidates(dir, home)
	_, _, err := Restore(cands)
	var nb *NoBackupError
	if !errors.As(err, &nb) || !strings.Contains(err.Error(), filepath.Join(dir, ".mcp.json")+" and "+filepath.Join(home, ".claude.json")) {
		t.Fatalf("got %v", err)
	}
	user := cands[1].Path
	os.WriteFile(user, []byte("now"), 0o600)
	os.WriteFile(BackupPath(user, at), []byte("old"), 0o600)
	os.WriteFile(BackupPath(user, at.Add(time.Hour)), []byte("newer"), 0o600)
	os.WriteFile(user+".backup-notatime", []byte("junk"), 0o600)
	cfg, backup, err := Restore(cands)
	if err != nil || cfg != cands[1] || backup != BackupPath(user, at.Add(time.Hour)) {
		t.Fatalf("Restore = %v %s %v", cfg, backup, err)
	}
	if data, _ := os.ReadFile(user); string(data) != "newer" {
		t.Errorf("restored %q", data)
	}
	if _, err := os.Stat(backup); err != nil {
		t.Error("the backup was not kept")
	}
}

func TestDetect(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	cands := Candidates(dir, home)
	var nc *NoConfigError
	if _, err := Detect(cands); !errors.As(err, &nc) || len(nc.Checked) != 2 {
		t.Fatalf("got %v", err)
	}
	os.WriteFile(cands[1].Path, []byte("{}"), 0o600)
	if c, err := Detect(cands); err != nil || c != cands[1] {
		t.Errorf("got %v %v, want the user config", c, err)
	}
	os.WriteFile(cands[0].Path, []byte("{}"), 0o600)
	if c, err := Detect(cands); err != nil || c != cands[0] {
		t.Errorf("got %v %v, want the project config first", c, err)
	}
	if got := Candidates(dir, ""); len(got) != 1 {
		t.Errorf("without a home: %v", got)
	}
}

// FuzzPlanInstall: no config makes planning panic; a plan's rewrite is
// valid JSON, and planning it again changes nothing.
func FuzzPlanInstall(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "configs"))
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join("testdata", "configs", e.Name()))
		f.Add(data)
	}
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":[]}}}`))
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":[` + "\n" + `"y"` + "\n" + `]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c.json")
		os.WriteFile(path, data, 0o600)
		cfg := Config{Path: path, Scope: ScopeUser}
		p, err := PlanInstall(cfg, reelierBin)
		if err != nil {
			return
		}
		if !json.Valid(bytes.TrimPrefix(p.Updated, bom)) {
			t.Fatalf("the rewrite of %q is not JSON: %q", data, p.Updated)
		}
		os.WriteFile(path, p.Updated, 0o600)
		again, err := PlanInstall(cfg, reelierBin)
		if err != nil || again.Wraps() != 0 {
			t.Fatalf("planning the rewrite of %q again: %v, %d wraps", data, err, again.Wraps())
		}
	})
}
