package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/testkit/ledgertest"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptLedgers holds the connection counter of each script's ledger.
var scriptLedgers sync.Map // *testscript.TestScript → *atomic.Int64

// ledgerdPostgres names the script variable that, when set, holds the
// PostgreSQL DSN ledgerd stores in instead of SQLite.
const ledgerdPostgres = "LEDGERD_POSTGRES"

// ledgerD is the script command `ledgerd [-key] [-as VAR] [-require-signed]
// [-trust-key PUB]… [-trust-identity ID -trust-issuer ISSUER]…
// [-trusted-root FILE]`: it starts a receipt ledger (a SQLite store in
// $WORK/ledgerd.db, or the PostgreSQL that $LEDGERD_POSTGRES names) on
// 127.0.0.1 inside the test process for the rest of the script, listening
// before the command returns. It sets $LEDGER to its URL, $LEDGER_DOWN to
// a URL where nothing listens and, with -key, $LEDGER_KEY to a valid API
// key (without -key the ledger is open to loopback clients). -as VAR names
// a second ledger: $VAR, $VAR_KEY and a SQLite store in $WORK/VAR.db. The
// trust flags are reelier ledger serve's, and start its verifier the same
// way (reelier-attest ledger-verify, a child process). It counts the TCP
// connections the first ledger accepts; see ledgerConns.
func ledgerD(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: ledgerd [-key] [-as VAR] [-require-signed] [-trust-key PUB]… [-trust-identity ID -trust-issuer ISSUER]… [-trusted-root FILE]")
	}
	var opts ledgerServeOptions
	opts.verifyTimeout = 30 * time.Second
	withKey, as := false, "LEDGER"
	for len(args) > 0 {
		flag := args[0]
		val := func() string {
			if len(args) < 2 {
				ts.Fatalf("ledgerd: %s needs a value", flag)
			}
			args = args[1:]
			return args[0]
		}
		switch flag {
		case "-key":
			withKey = true
		case "-require-signed":
			opts.requireSigned = true
		case "-as":
			as = val()
		case "-trust-key":
			opts.trustKeys = append(opts.trustKeys, ts.MkAbs(val()))
		case "-trust-identity":
			opts.trustIdentities = append(opts.trustIdentities, val())
		case "-trust-issuer":
			opts.trustIssuers = append(opts.trustIssuers, val())
		case "-trusted-root":
			opts.trustedRoot = ts.MkAbs(val())
		default:
			ts.Fatalf("ledgerd: unknown flag %q", flag)
		}
		args = args[1:]
	}
	var store server.Store
	var err error
	if dsn := ts.Getenv(ledgerdPostgres); dsn != "" && as == "LEDGER" {
		store, err = pgstore.Open(context.Background(), dsn)
	} else {
		db := "ledgerd.db"
		if as != "LEDGER" {
			db = as + ".db"
		}
		store, err = sqlitestore.Open(context.Background(), ts.MkAbs(db))
	}
	ts.Check(err)
	if withKey {
		key, hash := server.NewKey()
		ts.Check(store.AddKey(context.Background(), server.Key{Name: "script", Scope: server.ScopePush, CreatedAt: time.Now()}, hash))
		ts.Setenv(as+"_KEY", key)
	}
	cfg := server.Config{Store: store, Logf: ts.Logf, RequireSigned: opts.requireSigned}
	verifier, _, err := ledgerVerifier(context.Background(), opts, ts.Logf)
	ts.Check(err)
	if verifier != nil {
		cfg.VerifyRecord = verifier.Verify
	}
	srv, conns := ledgertest.ServeConfig(cfg)
	if as == "LEDGER" {
		scriptLedgers.Store(ts, conns)
	}
	ts.Defer(func() {
		srv.Close()
		if verifier != nil {
			verifier.Close()
		}
		store.Close()
		if as == "LEDGER" {
			scriptLedgers.Delete(ts)
		}
	})
	ts.Setenv(as, srv.URL)
	if as == "LEDGER" {
		down := httptest.NewServer(http.NotFoundHandler())
		down.Close()
		ts.Setenv("LEDGER_DOWN", down.URL)
	}
}

// ledgerConns is the script command `ledgerconns N`: it fails unless the
// script's ledger has accepted exactly N connections so far.
func ledgerConns(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: ledgerconns N")
	}
	want, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	v, ok := scriptLedgers.Load(ts)
	if !ok {
		ts.Fatalf("ledgerconns: no ledgerd in this script")
	}
	got := v.(*atomic.Int64).Load()
	if (got == want) == neg {
		ts.Fatalf("the ledger accepted %d connection(s); want %s%d", got, map[bool]string{true: "not "}[neg], want)
	}
}

// envFile is the script command `envfile VAR FILE`: it sets VAR to FILE's
// content without surrounding white space, so a script can use what a
// command printed (a key from 'reelier ledger key create') in a later one.
func envFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
}
