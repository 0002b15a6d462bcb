// Package sqlitestore is the ledger's zero-setup store: one SQLite file,
// through a pure-Go driver (modernc.org/sqlite), so the reelier binary
// stays free of cgo.
//
// The database runs in WAL mode with a busy timeout; every write is an
// IMMEDIATE transaction, so concurrent requests of one ledger process queue
// for the write lock instead of failing. Schema migrations are applied in
// order when the store opens. The queries are package sqlstore's; this
// package is SQLite's dialect of them.
package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/ledger/sqlstore"
	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is a ledger.Store in a SQLite file.
type Store = sqlstore.Store

// dialect is SQLite's: ? placeholders, times as fixed-width UTC text (so
// text order is time order), no row locks (a write holds the whole file).
var dialect = &sqlstore.Dialect{
	Migrations:      migrationFS,
	MigrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
	Serialized:      true,
	TimeLayout:      "2006-01-02T15:04:05.000000000Z",
	NameTaken:       func(err error) bool { return code(err) == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY },
	IsForeignKey:    func(err error) bool { return code(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY },
	HealthReason: func(ctx context.Context, err error) string {
		if ctx.Err() != nil {
			return "no answer in time"
		}
		return err.Error()
	},
}

// code returns the extended result code of a SQLite error, or 0.
func code(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// Open opens (creating it and its directory if needed) the database file
// at path and applies any pending migrations. The migrations run in one
// IMMEDIATE transaction, so two processes opening the same file migrate
// once.
func Open(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", "10000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, dialect)
	if err != nil {
		return nil, fmt.Errorf("migrating %s: %w", path, err)
	}
	return s, nil
}
