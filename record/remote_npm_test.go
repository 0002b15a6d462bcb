package record_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/trace"
)

// loopbackPreload makes a Node server that listens on a port only (every
// interface) listen on 127.0.0.1 instead: the tests use loopback only.
const loopbackPreload = `const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    return listen.call(this, Number(args[0]), '127.0.0.1', ...args.slice(1));
  }
  return listen.apply(this, args);
};
`

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// everythingHTTP starts @modelcontextprotocol/server-everything in its
// streamable HTTP mode on a loopback port and returns its MCP endpoint,
// once the server said it listens.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	dir := npmPackage(t, "@modelcontextprotocol/server-everything")
	preload := filepath.Join(t.TempDir(), "loopback.cjs")
	if err := os.WriteFile(preload, []byte(loopbackPreload), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command("node", "-r", preload, filepath.Join(dir, "dist", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port "+port) {
				ready <- nil
				for sc.Scan() {
				}
				return
			}
		}
		ready <- errors.New("server-everything exited before it listened")
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("server-everything did not start listening within 60s")
	}
	return "http://127.0.0.1:" + port + "/mcp"
}

// bearerProxy is a loopback reverse proxy in front of target that lets
// through only requests carrying "Authorization: Bearer <token>"; it
// counts the ones it refused.
func bearerProxy(t *testing.T, target, token string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.FlushInterval = -1
	refused := &atomic.Int64{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			refused.Add(1)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + u.Path, refused
}

// reelierCmd runs the reelier binary with args and extra environment,
// returning its stdout, stderr and exit code.
func reelierCmd(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, reelierBin(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// startProxyArgs runs `reelier mcp` with args and extra environment and
// connects to it on stdio.
func startProxyArgs(t *testing.T, env []string, args ...string) *proxyProcess {
	t.Helper()
	p := &proxyProcess{dir: t.TempDir()}
	var err error
	if p.stderr, err = os.Create(filepath.Join(t.TempDir(), "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stderr.Close() })
	cmd := exec.Command(reelierBin(t), append([]string{"mcp", "--trace-dir", p.dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = p.stderr
	p.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p.session, err = mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v\nstderr:\n%s", err, p.errText(t))
	}
	t.Cleanup(func() { p.session.Close() })
	return p
}

func randomToken(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "tok" + hex.EncodeToString(b)
}

// TestRemoteEverythingWithToken: record → compile → replay against the
// reference server in its streamable HTTP mode, behind a proxy that wants
// a bearer token, the token given as 'Authorization: Bearer $TOKEN'. The
// token is in no trace, skill, run record or output; a wrong token is a
// clear error naming the server.
func TestRemoteEverythingWithToken(t *testing.T) {
	token := randomToken(t)
	endpoint, refused := bearerProxy(t, everythingHTTP(t), token)
	env := []string{"TOKEN=" + token, "XDG_CONFIG_HOME=" + t.TempDir(), "HOME=" + t.TempDir(), "NO_COLOR=1"}
	const header = "Authorization: Bearer $TOKEN"

	p := startProxyArgs(t, env, "--wrap", endpoint, "--wrap-header", header)
	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "remote"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "say hello"}, nil)
	if text, _ := callSession(t, cs, "echo", map[string]any{"message": "hello"}, nil); text != "Echo: hello" {
		t.Errorf("echo → %q", text)
	}
	callSession(t, cs, "reelier_note", map[string]any{"text": "add up"}, nil)
	if text, _ := callSession(t, cs, "get-sum", map[string]any{"a": 2, "b": 3}, nil); text != "The sum of 2 and 3 is 5." {
		t.Errorf("get-sum → %q", text)
	}
	callSession(t, cs, "reelier_stop_recording", nil, nil)
	p.session.Close()
	tracePath := filepath.Join(p.dir, "remote-1.jsonl")
	tr, err := trace.Load(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Meta.Wrapped) != 1 || tr.Meta.Wrapped[0] != endpoint || len(tr.Meta.Servers) != 1 ||
		tr.Meta.Servers[0].Command != endpoint || strings.Join(tr.Meta.Servers[0].Headers, "|") != header {
		t.Errorf("meta: wrapped %v, servers %+v", tr.Meta.Wrapped, tr.Meta.Servers)
	}
	calls := 0
	for _, r := range tr.Records {
		if r.Kind() == trace.KindCall {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("%d calls recorded; want 2", calls)
	}

	work := t.TempDir()
	skill := filepath.Join(work, "remote.skill.md")
	if out, errOut, code := reelierCmd(t, env, "compile", tracePath, "-o", skill); code != 0 {
		t.Fatalf("compile: exit %d\n%s\n%s", code, out, errOut)
	}
	src, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "`"+endpoint+"`") || !strings.Contains(string(src), "(headers: `"+header+"`)") {
		t.Errorf("the skill's Servers section lacks the URL or the header:\n%s", src)
	}

	runs := filepath.Join(work, "runs")
	outputs := ""
	for _, args := range [][]string{
		{"run", skill, "--runs-dir", runs, "--servers-from-skill"},
		{"run", skill, "--runs-dir", runs},
		{"run", skill, "--runs-dir", runs, "--wrap", endpoint, "--wrap-header", header, "--json"},
	} {
		out, errOut, code := reelierCmd(t, env, args...)
		outputs += out + errOut
		if code != 0 {
			t.Errorf("%v: exit %d\n%s\n%s", args[2:], code, out, errOut)
		}
	}

	wrong := append(env[1:], "TOKEN=wrong-"+token[:8])
	out, errOut, code := reelierCmd(t, wrong, "run", skill, "--runs-dir", runs, "--wrap", endpoint, "--wrap-header", header)
	outputs += out + errOut
	if code != 3 || !strings.Contains(errOut, "--wrap "+endpoint+": the server refused the request: HTTP 401 Unauthorized; check the credentials given with --wrap-header") {
		t.Errorf("a wrong token: exit %d\n%s", code, errOut)
	}
	if refused.Load() == 0 {
		t.Error("the token proxy refused nothing, so the wrong-token run did not reach it")
	}

	var files []string
	filepath.Walk(work, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	files = append(files, tracePath)
	if len(files) < 3 {
		t.Errorf("files written: %v", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", f)
		}
	}
	if strings.Contains(outputs+p.errText(t), token) {
		t.Error("the output holds the token")
	}
}

// TestDatabaseServer: @executeautomation/database-server 1.1.0 declares
// resources but refuses resources/templates/list; it is recorded through
// reelier mcp (the refusal noted, not fatal), compiled and replayed.
func TestDatabaseServer(t *testing.T) {
	dir := npmPackage(t, "@executeautomation/database-server")
	work := t.TempDir()
	wrap := func(db string) string {
		return "node '" + filepath.Join(dir, "dist", "src", "index.js") + "' '" + filepath.Join(work, db) + "'"
	}
	p := startProxyArgs(t, nil, "--wrap", wrap("rec.db"))
	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "db"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "make the table"}, nil)
	callSession(t, cs, "create_table", map[string]any{"query": "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT)"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "add an item"}, nil)
	callSession(t, cs, "write_query", map[string]any{"query": "INSERT INTO items (title) VALUES ('first')"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "read the items"}, nil)
	if text, _ := callSession(t, cs, "read_query", map[string]any{"query": "SELECT id, title FROM items"}, nil); !strings.Contains(text, `"title": "first"`) {
		t.Errorf("read_query → %q", text)
	}
	callSession(t, cs, "reelier_stop_recording", nil, nil)
	p.session.Close()
	if !strings.Contains(p.errText(t), `it declares resources but answered resources/templates/list with "Method not found"; taken as an empty list`) {
		t.Errorf("no note about the refused list:\n%s", p.errText(t))
	}
	tracePath := filepath.Join(p.dir, "db-1.jsonl")
	skill := filepath.Join(work, "db.skill.md")
	if out, errOut, code := reelierCmd(t, nil, "compile", tracePath, "-o", skill); code != 0 {
		t.Fatalf("compile: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := reelierCmd(t, nil, "run", skill, "--runs-dir", filepath.Join(work, "runs"), "--yes", "--wrap", wrap("replay.db"))
	if code != 0 {
		src, _ := os.ReadFile(skill)
		t.Errorf("replay: exit %d\n%s\n%s\n%s", code, out, errOut, src)
	}
}
