package ledgertest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
)

// Serve starts a ledger over store on 127.0.0.1 and counts the connections
// it accepts (so a test can prove a client made none). The caller closes
// the server.
func Serve(store server.Store, logf func(string, ...any)) (*httptest.Server, *atomic.Int64) {
	return ServeConfig(server.Config{Store: store, Logf: logf})
}

// ServeConfig is Serve with the server configured by cfg.
func ServeConfig(cfg server.Config) (*httptest.Server, *atomic.Int64) {
	conns := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(server.NewServer(cfg))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	return srv, conns
}

// StartSQLite serves a ledger over a fresh SQLite store with one API key,
// for the length of the test, and returns its URL, the key, the store and
// the connection count.
func StartSQLite(t testing.TB) (url, key string, store *sqlitestore.Store, conns *atomic.Int64) {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	key, hash := server.NewKey()
	if err := store.AddKey(context.Background(), server.Key{Name: "test", Scope: server.ScopePush, CreatedAt: time.Now()}, hash); err != nil {
		t.Fatal(err)
	}
	srv, conns := Serve(store, t.Logf)
	t.Cleanup(func() {
		srv.Close()
		store.Close()
	})
	return srv.URL, key, store, conns
}
