package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/replay/suite"
	"github.com/reelier/reelier/testkit/testutil"
)

// hangMCP is the program hangmcp: a stdio MCP server (raw JSON-RPC lines)
// with one destructive tool, delete_account, that never answers. It
// appends what it is sent to $HANGMCP_LOG ("pid N" first, then
// "call ID ARGS" and "cancelled ID"), and writes "arrived" to the named
// pipe $HANGMCP_FIFO when the call comes in, so a test knows the request
// is with the server. With HANGMCP_STUBBORN=1 it ignores SIGTERM and the
// end of its input, so only a kill ends it.
func hangMCP() int {
	logf, err := os.OpenFile(os.Getenv("HANGMCP_LOG"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(logf, "pid %d\n", os.Getpid())
	stubborn := os.Getenv("HANGMCP_STUBBORN") == "1"
	if stubborn {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		reply := func(result any) {
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		switch msg.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(msg.Params, &p)
			reply(map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "hang", "version": "1.0.0"}})
		case "tools/list":
			reply(map[string]any{"tools": []any{map[string]any{"name": "delete_account", "description": "Delete an account; never answers.",
				"inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"destructiveHint": true}}}})
		case "tools/call":
			var p struct {
				Arguments json.RawMessage `json:"arguments"`
			}
			json.Unmarshal(msg.Params, &p)
			fmt.Fprintf(logf, "call %s %s\n", msg.ID, p.Arguments)
			if f, err := os.OpenFile(os.Getenv("HANGMCP_FIFO"), os.O_WRONLY, 0); err == nil {
				f.WriteString("arrived\n")
				f.Close()
			}
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(msg.Params, &p)
			fmt.Fprintf(logf, "cancelled %s\n", p.RequestID)
		case "ping":
			reply(map[string]any{})
		default:
			if len(msg.ID) > 0 {
				out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			}
		}
	}
	if stubborn {
		select {}
	}
	return 0
}

// interruptedRun starts reelier in dir with args and env, waits for the
// request to reach the server (arrived is closed or receives), sends
// SIGINT, and returns the command, its stderr reader positioned after the
// "stopping…" line, and everything read so far.
type interruptedRun struct {
	cmd    *exec.Cmd
	stderr *bufio.Reader
	out    bytes.Buffer
}

func startRun(t *testing.T, dir string, env []string, args ...string) *interruptedRun {
	t.Helper()
	cmd := exec.Command(testutil.ReelierBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	r := &interruptedRun{cmd: cmd}
	cmd.Stdout = &r.out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.stderr = bufio.NewReader(pipe)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return r
}

// stopping sends SIGINT and reads stderr up to the stopping notice.
func (r *interruptedRun) stopping(t *testing.T) string {
	t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for {
		line, err := r.stderr.ReadString('\n')
		seen.WriteString(line)
		if strings.TrimSpace(line) == suite.StoppingNotice {
			return seen.String()
		}
		if err != nil {
			t.Fatalf("no %q on stderr: %v\n%s", suite.StoppingNotice, err, seen.String())
		}
	}
}

// wait drains stderr and waits for the exit, which must be status 130.
func (r *interruptedRun) wait(t *testing.T) string {
	t.Helper()
	rest, _ := io.ReadAll(r.stderr)
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130:\nstdout:\n%s\nstderr:\n%s", err, r.out.String(), rest)
	}
	return string(rest)
}

func readRecord(t *testing.T, path string) runlog.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec runlog.Record
	if err := json.Unmarshal(bytes.TrimSpace(data), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// checkInFlight holds a record of a run interrupted while step 1's
// request was with the server: step 1 interrupted in flight with what was
// sent (the secret blanked), step 2 never sent, the verdict interrupted.
func checkInFlight(t *testing.T, rec runlog.Record, tool, secret string) {
	t.Helper()
	s1, s2 := rec.Steps[0], rec.Steps[1]
	if rec.Verdict != runlog.VerdictInterrupted || rec.Passed || rec.Totals.Failed != 0 || rec.Totals.Interrupted != 1 || rec.Totals.Skipped != 1 {
		t.Errorf("verdict %q, totals %+v", rec.Verdict, rec.Totals)
	}
	if s1.Outcome != runlog.Interrupted || s1.Skip != "" || len(s1.Failures) != 0 || s1.Action == nil || s1.Action.Tool != tool {
		t.Fatalf("step 1 %+v, want interrupted in flight with its action", s1)
	}
	if args := string(s1.Action.Args); strings.Contains(args, secret) || !strings.Contains(args, "«redacted") || !strings.Contains(args, "acct_42") {
		t.Errorf("step 1 sent %s: want the account and the secret blanked", args)
	}
	if s2.Outcome != runlog.Skipped || s2.Skip != "interrupted" || s2.Action != nil {
		t.Errorf("step 2 %+v, want not run (interrupted), nothing sent", s2)
	}
}

// TestRunInterruptedInFlightHTTP: Ctrl-C while an http.post is with the
// server prints the stopping notice, abandons the request (the server
// sees its request context end), and records the step as interrupted in
// flight with what was sent — never as not run; the step after it was
// never sent and is not run. Exit status 130.
func TestRunInterruptedInFlightHTTP(t *testing.T) {
	arrived, cancelled := make(chan string, 1), make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		arrived <- r.Method + " " + r.URL.Path + " " + string(body)
		<-r.Context().Done()
		cancelled <- struct{}{}
	}))
	defer srv.Close()
	dir := t.TempDir()
	const secret = "pw-1f2e3d4c5b6a"
	skill := "---\nname: close-account\ndescription: Closes an account on an endpoint that never answers\n---\n\n" +
		"### Step 1 — Close\n- intent: Close the account\n- action: http.post {\"url\": \"{{base}}/close\", \"body\": {\"account\": \"acct_42\", \"password\": \"{{pw}}\"}}\n- assert: status == 200\n- effect: destructive\n\n" +
		"### Step 2 — Confirm\n- intent: Never reached\n- action: http.get {\"url\": \"{{base}}/confirm\"}\n- effect: read\n"
	if err := os.WriteFile(filepath.Join(dir, "close.skill.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startRun(t, dir, nil, "run", "--yes", "--var", "base="+srv.URL, "--secret-var", "pw="+secret, "close.skill.md")
	select {
	case got := <-arrived:
		if !strings.HasPrefix(got, "POST /close ") || !strings.Contains(got, secret) {
			t.Fatalf("the server got %q", got)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the request never arrived:\n%s", r.out.String())
	}
	r.stopping(t)
	select {
	case <-cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("the request in flight was not cancelled")
	}
	r.wait(t)
	rec := readRecord(t, filepath.Join(dir, ".reelier", "runs", "close-account.jsonl"))
	checkInFlight(t, rec, "http.post", secret)
	out := r.out.String()
	for _, want := range []string{"INTERRUPT", "interrupted in flight: the request was sent; the server may have acted on it", "sent:     http.post", "1 interrupted in flight"} {
		if !strings.Contains(out, want) {
			t.Errorf("the receipt lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, secret) {
		t.Errorf("the receipt shows the secret:\n%s", out)
	}
}

// hangSetup writes the skill that calls hangmcp's delete_account, makes
// the arrival pipe and returns the environment for the server.
func hangSetup(t *testing.T, dir string, stubborn bool) (env []string, arrived *os.File, logPath string) {
	t.Helper()
	skill := "---\nname: delete-account\ndescription: Deletes an account through a server that never answers\n---\n\n" +
		"### Step 1 — Delete\n- intent: Delete the account\n- action: delete_account {\"account\": \"acct_42\", \"token\": \"{{tok}}\"}\n- effect: destructive\n\n" +
		"### Step 2 — List\n- intent: Never reached\n- action: delete_account {\"account\": \"acct_43\"}\n- effect: destructive\n"
	if err := os.WriteFile(filepath.Join(dir, "delete.skill.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "arrived.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Opened read-write, so the open does not wait for a writer and a
	// read waits for the server's line.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	logPath = filepath.Join(dir, "server.log")
	env = []string{"HANGMCP_LOG=" + logPath, "HANGMCP_FIFO=" + fifo}
	if stubborn {
		env = append(env, "HANGMCP_STUBBORN=1")
	}
	return env, f, logPath
}

func waitArrived(t *testing.T, f *os.File) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := bufio.NewReader(f).ReadString('\n')
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call never reached the server")
	}
}

// TestRunInterruptedInFlightMCP: the same for a stdio MCP server: Ctrl-C
// while delete_account is with the server sends notifications/cancelled
// for that request (the server logs it) and records the step as
// interrupted in flight with what was sent.
func TestRunInterruptedInFlightMCP(t *testing.T) {
	if _, err := exec.LookPath("hangmcp"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env, arrived, logPath := hangSetup(t, dir, false)
	const secret = "tok-9a8b7c6d5e4f"
	r := startRun(t, dir, env, "run", "--yes", "--wrap", "hangmcp", "--secret-var", "tok="+secret, "delete.skill.md")
	waitArrived(t, arrived)
	r.stopping(t)
	r.wait(t)
	rec := readRecord(t, filepath.Join(dir, ".reelier", "runs", "delete-account.jsonl"))
	checkInFlight(t, rec, "delete_account", secret)
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var callID string
	cancelledIDs := map[string]bool{}
	for _, line := range strings.Split(string(log), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "call":
			callID = f[1]
		case len(f) == 2 && f[0] == "cancelled":
			cancelledIDs[f[1]] = true
		}
	}
	if callID == "" || !cancelledIDs[callID] {
		t.Errorf("the server was not sent notifications/cancelled for call %q:\n%s", callID, log)
	}
	if strings.Count(string(log), "call ") != 1 {
		t.Errorf("the server got more than the one call:\n%s", log)
	}
}

// TestRunSecondInterrupt: after the first Ctrl-C the run stops in order,
// which here would wait out the server's shutdown grace (hangmcp ignores
// the end of its input and SIGTERM, so only a kill after the grace ends
// it); a second Ctrl-C exits 130 at once — the server is still alive when
// reelier has gone, so reelier never waited to kill it.
func TestRunSecondInterrupt(t *testing.T) {
	dir := t.TempDir()
	env, arrived, logPath := hangSetup(t, dir, true)
	r := startRun(t, dir, env, "run", "--yes", "--wrap", "hangmcp", "--var", "tok=x", "delete.skill.md")
	waitArrived(t, arrived)
	r.stopping(t)
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscanf(string(log), "pid %d", &pid)
	if pid <= 0 {
		t.Fatalf("no pid in the server's log:\n%s", log)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the server (pid %d) is gone: reelier waited out its shutdown instead of exiting at once (%v)", pid, err)
	}
	p.Kill()
}
