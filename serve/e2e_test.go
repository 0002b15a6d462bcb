package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
)

// These tests drive the real binary, built once per test run, over stdio
// and over HTTP on 127.0.0.1, with the go-sdk client and with the MCP
// Inspector's CLI.

// reelierBin returns the built reelier binary.
func reelierBin(t testing.TB) string { return testutil.ReelierBinary(t) }

// workDir is a working directory with the bookings skill in it.
func workDir(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"skills/bookings.skill.md": bookingsSkill})
	return dir
}

// TestBinaryStdio: `reelier serve` started by a go-sdk client, as an
// agent starts it: tools listed and called, a replay's record written in
// the server's directory, bad calls answered with errors, and a clean
// exit when the client goes.
func TestBinaryStdio(t *testing.T) {
	api, _ := fakeAPI(t)
	dir := workDir(t)
	cmd := exec.Command(reelierBin(t), "serve", "--history-dir", "")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs := clientOn(t, &mcp.CommandTransport{Command: cmd})

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != len(allTools) {
		t.Fatalf("tools: %v %v", tools, err)
	}
	if schema, raw := replaySchema(t, cs); schema.Properties["wrap"] == nil {
		t.Errorf("reelier serve on stdio does not offer wrap: %s", raw)
	}
	var found FindSkillOutput
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "read this week's bookings"}`), &found)
	if len(found.Skills) != 1 || found.Skills[0].Path != "skills/bookings.skill.md" {
		t.Errorf("find: %+v", found)
	}
	var rec runlog.Record
	decode(t, call(t, cs, "reelier_replay", `{"skillPath": "skills/bookings.skill.md", "vars": {"base": "`+api+`"}}`), &rec)
	if !rec.Passed || rec.Totals.Unchecked != 1 {
		t.Errorf("replay: %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(dir, ".reelier", "runs", "bookings.jsonl")); err != nil {
		t.Errorf("run record: %v", err)
	}
	wantError(t, call(t, cs, "reelier_nope", `{}`), `unknown tool "reelier_nope"`)
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "../../etc/passwd"}`), "outside the working directory")
	wantError(t, call(t, cs, "reelier_scan", `{}`), "no history directory")

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d after the client left; stderr:\n%s", code, stderr.String())
	}
}

// httpServer is a `reelier serve --http` process.
type httpServer struct {
	cmd      *exec.Cmd
	endpoint string
	stderr   *strings.Builder
}

var servingLine = regexp.MustCompile(`serving MCP at (http://\S+)`)

// startHTTP starts `reelier serve --http 127.0.0.1:0` with extra
// arguments and environment, and reads its stderr until it says where it
// listens (the listener is open by then: no waiting on a clock).
func startHTTP(t *testing.T, dir string, env []string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(reelierBin(t), append([]string{"serve", "--http", "127.0.0.1:0", "--history-dir", ""}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, stderr: &strings.Builder{}}
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		s.stderr.WriteString(sc.Text() + "\n")
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			s.endpoint = m[1]
			break
		}
	}
	if s.endpoint == "" {
		cmd.Wait()
		t.Fatalf("reelier serve --http did not start:\n%s", s.stderr)
	}
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, pipe); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-done
		if err := cmd.Wait(); err != nil {
			t.Errorf("reelier serve --http after SIGTERM: %v\n%s", err, s.stderr)
		}
	})
	return s
}

// TestBinaryHTTP: the HTTP transport of the binary, with a token from the
// environment: a client with it works, one without it is turned away,
// and a replay cannot start processes.
func TestBinaryHTTP(t *testing.T) {
	const token = "e2e-token-0123456789abcdef"
	srv := startHTTP(t, workDir(t), []string{"SERVE_TOKEN=" + token}, "--token-env", "SERVE_TOKEN")
	if strings.Contains(srv.stderr.String(), token) {
		t.Error("the token was printed")
	}
	if !strings.Contains(srv.stderr.String(), "bearer token from $SERVE_TOKEN required") {
		t.Errorf("the server does not say a token guards it:\n%s", srv.stderr)
	}
	cs, err := httpClient(t, srv.endpoint, token)
	if err != nil {
		t.Fatal(err)
	}
	var found FindSkillOutput
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "bookings"}`), &found)
	if len(found.Skills) != 1 {
		t.Errorf("find over HTTP: %+v", found)
	}
	if schema, raw := replaySchema(t, cs); schema.Properties["wrap"] != nil {
		t.Errorf("reelier serve --http offers wrap: %s", raw)
	}
	wantError(t, call(t, cs, "reelier_replay", `{"skillPath": "skills/bookings.skill.md", "wrap": ["sh -c 'touch pwned'"]}`), "only available when reelier serve runs on stdio")
	if _, err := httpClient(t, srv.endpoint, ""); err == nil {
		t.Error("a client without the token connected")
	}
}

// npmPackage returns the folder of an npm package installed by .ci/run
// into REELIER_NPM_DIR: skipped when the variable is unset, failed when it
// is set and the package is missing, so CI cannot pass by skipping.
func npmPackage(t *testing.T, pkg string) string {
	t.Helper()
	const env = "REELIER_NPM_DIR"
	dir := os.Getenv(env)
	if dir == "" {
		t.Skipf("%s is not set; run `npm ci --prefix .ci/node` and set %s=$PWD/.ci/node to run the MCP Inspector test", env, env)
	}
	p := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	if _, err := os.Stat(filepath.Join(p, "package.json")); err != nil {
		t.Fatalf("%s=%s but npm package %s is not installed there: %v", env, dir, pkg, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("%s is set but node is not on PATH: %v", env, err)
	}
	return p
}

// TestInspector: the MCP Inspector's CLI, a third-party client, lists and
// calls the tools of `reelier serve` over stdio and over HTTP; a wrongly
// typed argument and an unknown tool come back as error results.
func TestInspector(t *testing.T) {
	cli := filepath.Join(npmPackage(t, "@modelcontextprotocol/inspector"), "cli", "build", "cli.js")
	dir := workDir(t)
	inspect := func(target []string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		argv := append(append([]string{cli, "--cli"}, target...), args...)
		cmd := exec.CommandContext(ctx, "node", argv...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	stdio := []string{reelierBin(t), "serve", "--history-dir", ""}
	httpSrv := startHTTP(t, dir, nil)
	for name, target := range map[string][]string{"stdio": stdio, "http": {httpSrv.endpoint}} {
		t.Run(name, func(t *testing.T) {
			var list struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			out := inspect(target, "--method", "tools/list")
			if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tools) != len(allTools) {
				t.Fatalf("tools/list: %v\n%s", err, out)
			}
			var res struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent FindSkillOutput `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			}
			out = inspect(target, "--method", "tools/call", "--tool-name", "reelier_find_skill", "--tool-arg", "task=list this week's bookings")
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.IsError || len(res.StructuredContent.Skills) != 1 {
				t.Errorf("find through the inspector: %v\n%s", err, out)
			}
			for _, bad := range [][]string{
				// (limit=lots is no longer a bad call: the inspector sends an
				// unparseable number as null, which means "not given".)
				{"--tool-name", "reelier_find_skill", "--tool-arg", "task=bookings", "--tool-arg", "verbose=1"},
				{"--tool-name", "reelier_frobnicate"},
				{"--tool-name", "reelier_replay"},
			} {
				out = inspect(target, append([]string{"--method", "tools/call"}, bad...)...)
				res.IsError = false
				if err := json.Unmarshal([]byte(out), &res); err != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text == "" {
					t.Errorf("%v through the inspector: want an error result with a message: %v\n%s", bad, err, out)
				}
			}
		})
	}
}
