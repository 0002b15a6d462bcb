package cli

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/testkit/ledgertest"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestLedgerContract runs the scripts in testdata/contract: every verdict
// and failure kind `reelier run` writes, pushed with `reelier push` to a
// real ledger (ledgerd), read back through its API and pages (#30).
// The ledger's store is SQLite, and PostgreSQL too when REELIER_TEST_PG_DSN
// names a server (in CI it must).
func TestLedgerContract(t *testing.T) {
	for _, store := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return ledgertest.PostgresDSN(t) }},
	} {
		t.Run(store.name, func(t *testing.T) {
			store.dsn(t) // skips, or fails under CI, without a server
			testscript.Run(t, testscript.Params{
				Dir: "testdata/contract",
				// Each script gets a store of its own (a fresh schema).
				Setup: func(env *testscript.Env) error {
					env.Setenv(ledgerdPostgres, store.dsn(t))
					return nil
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"mcpagent":  mcpAgent,
					"exitcode":  exitCodeCmd,
					"fakeapi":   fakeAPI,
					"ledgerd":   ledgerD,
					"ledgerget": ledgerGet,
					"hangwait":  hangWait,
				},
			})
		})
	}
}

// ledgerGet is the script command `ledgerget PATH`: a GET of PATH on the
// script's ledger with $LEDGER_KEY as the bearer, its body printed on
// stdout; it fails unless the answer is 200.
func ledgerGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ledgerget PATH")
	}
	req, err := http.NewRequest(http.MethodGet, ts.Getenv("LEDGER")+args[0], nil)
	ts.Check(err)
	if key := ts.Getenv("LEDGER_KEY"); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("GET %s: %s: %s", args[0], resp.Status, body)
	}
	ts.Stdout().Write(body)
}

// hangs holds, per script, the channel fakeapi's /hang signals on when a
// request arrives there.
var hangs sync.Map // *testscript.TestScript → chan struct{}

// hangArrived is the channel of ts's /hang arrivals.
func hangArrived(ts *testscript.TestScript) chan struct{} {
	ch, _ := hangs.LoadOrStore(ts, make(chan struct{}, 16))
	return ch.(chan struct{})
}

// hangWait is the script command `hangwait`: it returns once a request
// has arrived at fakeapi's /hang (so a background run is mid-call), and
// fails after 30 seconds without one.
func hangWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: hangwait")
	}
	select {
	case <-hangArrived(ts):
	case <-time.After(30 * time.Second):
		ts.Fatalf("hangwait: no request reached /hang within 30s")
	}
}
