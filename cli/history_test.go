package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/reelier/reelier/testkit/testutil"
)

// The tests here run the reelier command that testscript.Main puts on
// PATH (this test binary under the name reelier), so `reelier init` can
// start itself as the demo server exactly as an installed binary does.

// TestHistoryExitCodes pins the exit status of each way the history
// commands end.
func TestHistoryExitCodes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", filepath.Join(dir, "home"))
	copyFile(t, fixture("mixed.jsonl"), "session.jsonl")
	copyFile(t, fixture("none.jsonl"), "none.jsonl")
	os.MkdirAll("corrupt", 0o755)
	os.WriteFile(filepath.Join("corrupt", ".mcp.json"), []byte(`{"mcpServers": {,}}`), 0o644)
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"from-session", "session.jsonl"}, exitOK},
		{[]string{"from-session", "none.jsonl"}, exitFailed},
		{[]string{"from-session", "missing.jsonl"}, exitUsage},
		{[]string{"from-session", "session.jsonl"}, exitUsage}, // the skill exists now
		{[]string{"from-session"}, exitUsage},
		{[]string{"scan", "--dir", "."}, exitOK},
		{[]string{"scan", "--dir", "missing"}, exitUsage},
		{[]string{"scan", "extra"}, exitUsage},
		{[]string{"install"}, exitFailed},                      // no config
		{[]string{"install", "--agent", "cursor"}, exitFailed}, // no config
		{[]string{"install", "--agent", "gemini"}, exitFailed}, // no config
		{[]string{"install", "--agent", "windsurf"}, exitUsage},
		{[]string{"uninstall"}, exitFailed}, // no backup
	}
	for _, tt := range tests {
		if code := run(tt.args, strings.NewReader(""), io.Discard, io.Discard); code != tt.code {
			t.Errorf("reelier %s: exit %d, want %d", strings.Join(tt.args, " "), code, tt.code)
		}
	}
	t.Chdir("corrupt")
	if code := run([]string{"install"}, strings.NewReader(""), io.Discard, io.Discard); code != exitUsage {
		t.Errorf("install with a corrupt config: exit %d, want %d", code, exitUsage)
	}
}

// TestInitReceipt pins the whole first-run output, with durations and
// paths normalised.
func TestInitReceipt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"notes": {"command": "notes-mcp"}}}`), 0o644)
	cmd := exec.Command("reelier", "init", "--yes")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("reelier init --yes: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	testutil.Golden(t).Assert(t, "init-yes", normalise(t, stdout.String(), dir))
}

// normalise replaces what changes from run to run: durations, the
// working directory and the reelier binary's path.
func normalise(t *testing.T, out, dir string) []byte {
	t.Helper()
	exe, err := exec.LookPath("reelier")
	if err != nil {
		t.Fatal(err)
	}
	out = strings.ReplaceAll(out, exe, "<reelier>")
	out = strings.ReplaceAll(out, dir, "$WORK")
	out = regexp.MustCompile(`\b\d+(\.\d+)?ms\b`).ReplaceAllString(out, "<N>ms")
	return []byte(out)
}

// TestScanPrompt drives scan's selection prompt through a terminal: a
// number that is not listed is refused and asked again, and only the
// chosen session is compiled. The progress bar shows.
func TestScanPrompt(t *testing.T) {
	dir := t.TempDir()
	for name, target := range map[string]string{
		"mixed.jsonl":       filepath.Join("history", "-home-ann-my-app", "2f8e5c1a.jsonl"),
		"claude-file.jsonl": filepath.Join("history", "-tmp-live", "f4985088.jsonl"),
		"none.jsonl":        filepath.Join("history", "-home-ann-other", "9a1b2c3d.jsonl"),
	} {
		copyFile(t, fixture(name), filepath.Join(dir, target))
	}
	term := startTerminal(t, dir, "scan", "--dir", "history")
	term.waitFor(t, "Which should Reelier turn into a skill you can replay forever?")
	term.waitFor(t, "[2] my-app · 2026-07-19 12:50 UTC · 3 replayable call(s) — caldiy, http builtins")
	term.waitFor(t, `Select sessions to compile (comma-separated numbers, "all", or Enter for none): `)
	term.send(t, "9\n")
	term.waitFor(t, "9 is not in the list (1–2)")
	term.waitFor(t, "Enter for none): ")
	term.send(t, "2\n")
	term.waitFor(t, "Compiled .reelier/skills-from-scan/my-app-2f8e5c1a.skill.md — 3 steps")
	if err := term.wait(); err != nil {
		t.Fatalf("reelier scan: %v\n%s", err, term.output())
	}
	if !strings.Contains(term.output(), "Scanning [") {
		t.Errorf("no progress bar on the terminal:\n%q", term.output())
	}
	entries, _ := os.ReadDir(filepath.Join(dir, ".reelier", "skills-from-scan"))
	if len(entries) != 1 || entries[0].Name() != "my-app-2f8e5c1a.skill.md" {
		t.Errorf("compiled %v, want only my-app-2f8e5c1a.skill.md", entries)
	}
}

// TestInitOffer drives init's install offer through a terminal: Enter
// keeps the default (no) and the config is untouched; "y" installs, with
// the backup first and the way back printed.
func TestInitOffer(t *testing.T) {
	const config = `{"mcpServers": {"notes": {"command": "notes-mcp", "args": ["--dir", "/tmp/notes"]}}}`
	for _, answer := range []string{"\n", "y\n"} {
		t.Run(strings.TrimSpace(answer+"(enter)"), func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(config), 0o644)
			term := startTerminal(t, dir, "init")
			term.waitFor(t, "LLM tokens:   0 [measured]")
			term.waitFor(t, "Front them now? The config is backed up first. [y/N] ")
			term.send(t, answer)
			if err := term.wait(); err != nil {
				t.Fatalf("reelier init: %v\n%s", err, term.output())
			}
			data, _ := os.ReadFile(filepath.Join(dir, ".mcp.json"))
			backups, _ := filepath.Glob(filepath.Join(dir, ".mcp.json.backup-*"))
			if answer == "\n" {
				if string(data) != config || len(backups) != 0 || !strings.Contains(term.output(), "Left it unchanged.") {
					t.Errorf("the default answer changed something:\n%s\n%s", data, term.output())
				}
				return
			}
			if !strings.Contains(string(data), `"args": ["mcp", "--wrap", "notes-mcp --dir /tmp/notes"]`) || len(backups) != 1 {
				t.Errorf("not installed: %s, backups %v", data, backups)
			}
			if !strings.Contains(term.output(), "To revert: reelier uninstall") {
				t.Errorf("the way back is not printed:\n%s", term.output())
			}
		})
	}
}

// terminal is a reelier process on a pseudo-terminal, and everything it
// has written so far.
type terminal struct {
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	more chan struct{} // signalled after each read
	done chan struct{} // closed when the output ends
}

func startTerminal(t *testing.T, dir string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command("reelier", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "NO_COLOR=1", "TERM=xterm")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 250})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{cmd: cmd, tty: tty, more: make(chan struct{}, 1), done: make(chan struct{})}
	go term.read()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
	})
	return term
}

func (term *terminal) read() {
	defer close(term.done)
	buf := make([]byte, 4096)
	for {
		n, err := term.tty.Read(buf)
		term.mu.Lock()
		term.out.Write(buf[:n])
		term.mu.Unlock()
		select {
		case term.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return strings.ReplaceAll(term.out.String(), "\r\n", "\n")
}

// waitFor waits until the output holds s, failing after a generous
// deadline; it wakes on every read, never on a timer tick.
func (term *terminal) waitFor(t *testing.T, s string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !strings.Contains(term.output(), s) {
		select {
		case <-term.more:
		case <-term.done:
			if !strings.Contains(term.output(), s) {
				t.Fatalf("the output ended without %q:\n%s", s, term.output())
			}
		case <-ctx.Done():
			t.Fatalf("no %q in the output:\n%s", s, term.output())
		}
	}
}

func (term *terminal) send(t *testing.T, s string) {
	t.Helper()
	if _, err := term.tty.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the process to exit and its output to be read.
func (term *terminal) wait() error {
	err := term.cmd.Wait()
	<-term.done
	return err
}

func fixture(name string) string {
	return filepath.Join(testutil.Root(), "testdata", "sessions", name)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
