package sqlitestore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/cloud/ledger"
	"github.com/reelier/reelier/cloud/ledger/ledgertest"
	"github.com/reelier/reelier/cloud/ledger/sqlitestore"
)

func open(t *testing.T) ledger.Store {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) { ledgertest.StoreSuite(t, open) }

// TestMigrations: reopening applies nothing twice, and a database from a
// newer reelier is refused instead of being written with an old schema.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	for range 2 {
		s, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n)
	if n != 1 {
		t.Errorf("%d migration rows after two opens, want 1", n)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlitestore.Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer than this reelier knows") {
		t.Errorf("opening a newer database: %v", err)
	}
}
