package pgstore_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/reelier/reelier/cloud/ledger"
	"github.com/reelier/reelier/cloud/ledger/ledgertest"
	"github.com/reelier/reelier/cloud/ledger/pgstore"
)

func open(t *testing.T) ledger.Store {
	s, err := pgstore.Open(context.Background(), ledgertest.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) { ledgertest.StoreSuite(t, open) }

// TestConcurrentStarts: ledger processes starting together on an empty
// database migrate it once (the advisory lock) and all come up.
func TestConcurrentStarts(t *testing.T) {
	dsn := ledgertest.PostgresDSN(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := pgstore.Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d migration rows (%v), want 1", n, err)
	}
}
