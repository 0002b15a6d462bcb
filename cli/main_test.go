package cli

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/reelier/reelier/policy/engine"
	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"reelier": func() { os.Exit(Main()) },
		// reelier-seatbelt is cmd/reelier-seatbelt: the command line with
		// the policy engine, which "reelier" (no engine) hands off to.
		"reelier-seatbelt": func() {
			SetPolicyEngine(engine.CEL{})
			os.Exit(Main())
		},
		// reelier-attest is the program reelier verify and run --sign run.
		"reelier-attest": func() { os.Exit(attest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// mcptestserver is the Go MCP test server (testkit/mcptest) for
		// the mcp*.txtar scripts to --wrap.
		"mcptestserver": func() { os.Exit(mcptest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// hangmcp is a stdio MCP server whose one tool never answers
		// (interrupt_test.go).
		"hangmcp": func() { os.Exit(hangMCP()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: each .txtar file is
// a sequence of reelier invocations with their expected output and exit.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakeapi":     fakeAPI,
			"fakellm":     fakeLLM,
			"driftapi":    driftAPI,
			"ledgerd":     ledgerD,
			"ledgerconns": ledgerConns,
			"ledgerget":   ledgerGet,
			"envfile":     envFile,
			"exitcode":    exitCodeCmd,
			"keyless":     keylessCmd,
			"soloreelier": soloReelier,
		},
	})
}

// fakeAPI is the script command `fakeapi`: it starts an HTTP server on
// 127.0.0.1 inside the test process for the rest of the script, so it is
// listening before the command returns and no script ever waits for it.
// It sets $API to the server's URL and $DOWN to a URL where nothing
// listens, and logs every request it serves as "METHOD PATH" lines in
// $WORK/api.log (created on the first request).
func fakeAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakeapi")
	}
	var mu sync.Mutex
	logPath := ts.MkAbs("api.log")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bookings", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"bookings":[{"id":"bk_1","status":"confirmed"},{"id":"bk_2","status":"pending"}]}`)
	})
	mux.HandleFunc("GET /bookings/{id}", func(w http.ResponseWriter, r *http.Request) {
		status := "confirmed"
		if r.PathValue("id") != "bk_1" {
			status = "pending"
		}
		fmt.Fprintf(w, `{"id":%q,"status":%q,"guests":2}`, r.PathValue("id"), status)
	})
	mux.HandleFunc("POST /bookings/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q,"cancelled":true}`, r.PathValue("id"))
	})
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("GET /html", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>maintenance</html>")
	})
	// /hang never answers: it holds the request until the client gives up.
	mux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case hangArrived(ts) <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.Path)
			f.Close()
		}
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Defer(func() { hangs.Delete(ts) })
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	ts.Setenv("API", srv.URL)
	ts.Setenv("DOWN", down.URL)
}

// exitCodeCmd is the script command `exitcode N PROG ARGS…`: it runs PROG
// as exec does and fails unless it exits with status N, so scripts can
// hold every documented exit status to its number.
func exitCodeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS…]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
