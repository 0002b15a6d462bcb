package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/reelier/reelier/testkit/llmtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// fakeLLM is the script command `fakellm [-barrier N] REPLIES`: it starts
// the fake LLM provider (testkit/llmtest) on 127.0.0.1 for the rest of the
// script, speaking both wire formats, with the scripted replies of the file
// REPLIES (one JSON llmtest.Reply per line). It sets $LLM to its URL and
// logs each request as "<wire> <path> model=<model>" in $WORK/llm.log
// (created on the first request). -barrier N holds every reply until N
// requests have arrived.
func fakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	barrier := 0
	if len(args) == 3 && args[0] == "-barrier" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		barrier, args = n, args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakellm [-barrier N] REPLIES")
	}
	var replies []llmtest.Reply
	lines := bufio.NewScanner(strings.NewReader(ts.ReadFile(args[0])))
	for lines.Scan() {
		if strings.TrimSpace(lines.Text()) == "" {
			continue
		}
		var r llmtest.Reply
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			ts.Fatalf("%s: %v: %s", args[0], err, lines.Text())
		}
		replies = append(replies, r)
	}
	srv := llmtest.New(replies, llmtest.Options{Barrier: barrier, Log: &lazyLog{path: ts.MkAbs("llm.log")}})
	ts.Defer(srv.Close)
	ts.Setenv("LLM", srv.URL)
}

// lazyLog appends to a file it creates on the first write.
type lazyLog struct {
	mu   sync.Mutex
	path string
}

func (l *lazyLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Write(p)
}

// driftAPI is the script command `driftapi`: a service on 127.0.0.1 whose
// JSON drifts. GET /booking answers {"id": "bk_1"} until a file named
// `drifted` exists in $WORK, then {"data": {"id": "bk_1"}}; /old/NAME always
// answers the old shape and /new/NAME the new one, with id NAME_1; GET
// /booking/ID answers {"id": ID, "guests": 2}. It sets $API to its URL and
// logs every request as "METHOD PATH" in $WORK/api.log.
func driftAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: driftapi")
	}
	drifted := ts.MkAbs("drifted")
	shape := func(w http.ResponseWriter, id string, isNew bool) {
		if isNew {
			fmt.Fprintf(w, `{"data":{"id":%q}}`, id)
		} else {
			fmt.Fprintf(w, `{"id":%q}`, id)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /booking", func(w http.ResponseWriter, r *http.Request) {
		_, err := os.Stat(drifted)
		shape(w, "bk_1", err == nil)
	})
	mux.HandleFunc("GET /booking/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q,"guests":2}`, r.PathValue("id"))
	})
	mux.HandleFunc("GET /old/{name}", func(w http.ResponseWriter, r *http.Request) { shape(w, r.PathValue("name")+"_1", false) })
	mux.HandleFunc("GET /new/{name}", func(w http.ResponseWriter, r *http.Request) { shape(w, r.PathValue("name")+"_1", true) })
	log := &lazyLog{path: ts.MkAbs("api.log")}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(log, "%s %s\n", r.Method, r.URL.Path)
		mux.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("API", srv.URL)
}
