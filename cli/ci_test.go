package cli

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCIPrompt drives reelier ci's trust prompt through a terminal: the
// skill's server commands are listed and the answer decides. Enter keeps
// the default (no): nothing is written or remembered, exit 2. "y" writes
// the workflow with the commands and remembers the trust.
func TestCIPrompt(t *testing.T) {
	const skill = "---\nname: mem\ndescription: Remember a fact\n---\n\n## Servers\n\n- `memory`: `npx -y @modelcontextprotocol/server-memory` (tools: create_entities)\n\n" +
		"## Steps\n\n### Step 1 — Remember\n- intent: Remember it\n- action: create_entities {\"entities\": []}\n- effect: read\n"
	for _, answer := range []string{"\n", "y\n"} {
		t.Run(strings.TrimSpace(answer+"(enter)"), func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
			os.MkdirAll(filepath.Join(dir, "skills"), 0o755)
			os.WriteFile(filepath.Join(dir, "skills", "mem.skill.md"), []byte(skill), 0o644)
			term := startTerminal(t, dir, "ci", "--ref", "0123456789abcdef0123456789abcdef01234567")
			term.waitFor(t, "skills/mem.skill.md records 1 MCP server to start for it:\n  memory: npx -y @modelcontextprotocol/server-memory\n")
			term.waitFor(t, "Write them into it, and remember that you trust them? [y/N] ")
			term.send(t, answer)
			err := term.wait()
			workflow, _ := os.ReadFile(filepath.Join(dir, ".github", "workflows", "reelier.yml"))
			_, storeErr := os.Stat(filepath.Join(dir, "config", "reelier", "trusted-servers.json"))
			if answer == "\n" {
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 2 || workflow != nil || storeErr == nil || !strings.Contains(term.output(), "Check the commands above, then either") {
					t.Errorf("the default answer: %v, workflow %q, store %v\n%s", err, workflow, storeErr, term.output())
				}
				return
			}
			if err != nil || !strings.Contains(string(workflow), `wrap: "npx -y @modelcontextprotocol/server-memory\n"`) || storeErr != nil {
				t.Errorf("yes: %v, store %v, workflow:\n%s\n%s", err, storeErr, workflow, term.output())
			}
		})
	}
}

// TestCIWritesPrompt drives reelier ci's question about writing steps
// through a terminal: the steps are listed at file:line; Enter keeps the
// default (no), so nothing is written and the flags are named, exit 2;
// "y" writes the workflow with allow-writes "true".
func TestCIWritesPrompt(t *testing.T) {
	const skill = "---\nname: save\ndescription: Save a note\n---\n\n## Steps\n\n### Step 1 — Save\n- intent: Save it\n" +
		"- action: http.post {\"url\": \"https://api.example.test/notes\", \"body\": {}}\n- assert: status == 200\n- effect: idempotent-write\n"
	for _, answer := range []string{"\n", "y\n"} {
		t.Run(strings.TrimSpace(answer+"(enter)"), func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "skills"), 0o755)
			os.WriteFile(filepath.Join(dir, "skills", "save.skill.md"), []byte(skill), 0o644)
			term := startTerminal(t, dir, "ci", "--ref", "0123456789abcdef0123456789abcdef01234567")
			term.waitFor(t, "These steps write, and the workflow runs on every push, every pull request and every day:\n  skills/save.skill.md:8: step 1 (idempotent-write)\n")
			term.waitFor(t, "Let the workflow run them (allow-writes: \"true\")? [y/N] ")
			term.send(t, answer)
			err := term.wait()
			workflow, _ := os.ReadFile(filepath.Join(dir, ".github", "workflows", "reelier.yml"))
			if answer == "\n" {
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 2 || workflow != nil || !strings.Contains(term.output(), "--no-writes") {
					t.Errorf("the default answer: %v, workflow %q\n%s", err, workflow, term.output())
				}
				return
			}
			if err != nil || !strings.Contains(string(workflow), `allow-writes: "true"`) {
				t.Errorf("yes: %v, workflow:\n%s\n%s", err, workflow, term.output())
			}
		})
	}
}

// TestWriteReason: why a workflow could not be written, in words, for the
// errors a folder gives (this machine runs the tests as root, where a
// folder without write permission still takes a file: the permission and
// read-only cases are the errors themselves).
func TestWriteReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "/w/.github/workflows/.reelier.yml.tmp", Err: syscall.EACCES}, "the folder is not writable (permission denied)"},
		{&fs.PathError{Op: "mkdir", Path: "/w/.github/workflows", Err: syscall.ENOTDIR}, "a path on the way is a file, not a folder"},
		{&fs.PathError{Op: "open", Path: "/w/x", Err: syscall.EROFS}, "the file system is read-only"},
		{&fs.PathError{Op: "rename", Path: "/w/x", Err: syscall.ENOSPC}, "rename: no space left on device"},
		{errors.New("something else"), "something else"},
	}
	for _, tt := range tests {
		if got := writeReason(tt.err); got != tt.want {
			t.Errorf("writeReason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
