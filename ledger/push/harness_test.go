package push_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// storeKinds are the ledger stores every end-to-end test runs against.
var storeKinds = []struct {
	name string
	open func(t *testing.T) server.Store
}{
	{"sqlite", func(t *testing.T) server.Store {
		s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
	{"postgres", func(t *testing.T) server.Store {
		s, err := pgstore.Open(context.Background(), ledgertest.PostgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
}

// fault replaces the ledger's answer to one request.
type fault struct {
	// status and body are answered instead of the ledger's, unless status
	// is 0.
	status int
	body   string
	// hangup closes the connection without an answer: a network error.
	hangup bool
	// after runs once the ledger has answered, before the client sees it.
	after func()
}

// ledgerProxy is a real ledger behind a proxy that logs the run uploads it sees
// (by record index) and injects faults by request number.
type ledgerProxy struct {
	t     *testing.T
	store server.Store
	srv   *httptest.Server
	// index maps an idempotency key to the record's index in the history.
	index map[string]int

	mu          sync.Mutex
	runFaults   map[int]fault
	skillFaults map[int]fault
	runN        int
	skillN      int
	sent        []int
	conns       int
}

func newWire(t *testing.T, store server.Store, maxBody int64) *ledgerProxy {
	t.Helper()
	t.Cleanup(func() { store.Close() })
	w := &ledgerProxy{t: t, store: store, index: map[string]int{}}
	inner := server.NewServer(server.Config{Store: store, MaxBody: maxBody, Logf: t.Logf})
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		f, ok := w.take(r)
		switch {
		case ok && f.hangup:
			conn, _, err := rw.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		case ok && f.status != 0:
			rw.WriteHeader(f.status)
			rw.Write([]byte(f.body))
			return
		}
		inner.ServeHTTP(rw, r)
		if ok && f.after != nil {
			f.after()
		}
	}))
	w.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			w.mu.Lock()
			w.conns++
			w.mu.Unlock()
		}
	}
	w.srv.Start()
	t.Cleanup(w.srv.Close)
	return w
}

// take counts a request and returns the fault planned for it.
func (w *ledgerProxy) take(r *http.Request) (fault, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var f fault
	var ok bool
	switch r.URL.Path {
	case wire.RunsPath:
		if i, known := w.index[r.Header.Get(wire.IdempotencyHeader)]; known {
			w.sent = append(w.sent, i)
		}
		f, ok = w.runFaults[w.runN]
		w.runN++
	case wire.SkillsPath:
		f, ok = w.skillFaults[w.skillN]
		w.skillN++
	}
	return f, ok
}

// plan sets the faults of the next push and forgets what was sent.
func (w *ledgerProxy) plan(runFaults, skillFaults map[int]fault) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runFaults, w.skillFaults, w.runN, w.skillN, w.sent = runFaults, skillFaults, 0, 0, nil
}

// sentNow returns the record indexes uploaded since plan.
func (w *ledgerProxy) sentNow() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int(nil), w.sent...)
}

// connections is the number of TCP connections the ledger has accepted.
func (w *ledgerProxy) connections() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.conns
}

// client returns a push client for this ledger.
func (w *ledgerProxy) client() *push.Client {
	return &push.Client{Config: push.Config{BaseURL: w.srv.URL, Key: "rlk_test"}}
}

// storedRuns returns how many runs the ledger holds for skill.
func (w *ledgerProxy) storedRuns(skill string) int {
	w.t.Helper()
	k, err := w.store.Skill(context.Background(), skill)
	if errors.Is(err, server.ErrUnknownSkill) {
		return 0
	}
	if err != nil {
		w.t.Fatalf("reading the ledger: %v", err)
	}
	return k.Runs
}

// workdir is a directory with a run history and a state file.
type workdir struct {
	dir, runs, state string
	skill            string
}

func newWorkdir(t *testing.T, skill string) *workdir {
	dir := t.TempDir()
	return &workdir{
		dir: dir, skill: skill,
		runs:  filepath.Join(dir, ".reelier", "runs", skill+".jsonl"),
		state: filepath.Join(dir, ".reelier", "push-state.json"),
	}
}

// appendLines adds history lines.
func (d *workdir) appendLines(t *testing.T, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(d.runs), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(d.runs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		f.WriteString(l + "\n")
	}
}

// options returns push options for this directory.
func (d *workdir) options(c *push.Client) push.Options {
	return push.Options{
		Skill: d.skill, SkillMd: []byte("---\nname: " + d.skill + "\n---\n"), RunsFile: d.runs, StatePath: d.state,
		Client: c, Now: func() time.Time { return ledgertest.Base },
	}
}

// readState reads the state file; a missing one is empty.
func (d *workdir) readState(t *testing.T) push.State {
	t.Helper()
	st, err := push.ReadState(d.state, "")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// rejectedIndexes lists the indexes of a skill's rejection log.
func rejectedIndexes(st push.State, skill string) []int {
	var out []int
	if s := st[skill]; s != nil {
		for _, r := range s.Rejected {
			out = append(out, r.Index)
		}
	}
	return out
}

// mustJSON marshals v.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// bigRecord is a valid record of skill whose failure text makes it larger
// than n bytes.
func bigRecord(skill string, i, n int) string {
	var m map[string]any
	json.Unmarshal(ledgertest.Record(skill, i, "passed"), &m)
	m["steps"].([]any)[0].(map[string]any)["title"] = strings.Repeat("t", n)
	return mustJSON(m)
}

// cloudKey is the idempotency key a push sends for a history line of
// "weekly".
func cloudKey(line string) string { return wire.IdempotencyKey("weekly", []byte(line)) }
