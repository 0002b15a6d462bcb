// Package pgstore is the ledger's store for teams: PostgreSQL through pgx,
// so several stateless ledger processes can share one database.
//
// Every write is one transaction. A duplicate delivery is resolved by the
// database itself (a unique index on the idempotency key with ON CONFLICT
// DO NOTHING), so two processes receiving the same record at the same
// moment store it once. Schema migrations are applied at start under a
// transaction-scoped advisory lock, so processes starting together migrate
// once. The queries are package sqlstore's; this package is PostgreSQL's
// dialect of them.
package pgstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/reelier/reelier/ledger/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock id taken while migrating ("reelier"
// in ASCII).
const migrationLock = 0x7265656c696572

// PostgreSQL error codes the store maps to ledger errors.
const (
	codeForeignKey = "23503"
	codeUnique     = "23505"
)

// Store is a ledger.Store in a PostgreSQL database.
type Store = sqlstore.Store

// dialect is PostgreSQL's: numbered placeholders, TIMESTAMPTZ columns,
// row locks, and names ordered by their bytes whatever the database's
// collation.
var dialect = &sqlstore.Dialect{
	Migrations:      migrationFS,
	MigrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
	MigrationLock:   fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d)`, migrationLock),
	Numbered:        true,
	ForUpdate:       ` FOR UPDATE`,
	Collate:         ` COLLATE "C"`,
	NameTaken:       func(err error) bool { return pgCode(err) == codeUnique },
	IsForeignKey:    func(err error) bool { return pgCode(err) == codeForeignKey },
	HealthReason:    healthReason,
}

// Open connects to the database named by a postgres:// URL or key=value
// DSN and applies any pending migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("invalid PostgreSQL connection string") // the DSN may hold a password: not quoted
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The pool keeps the connections; database/sql holds none idle.
	db := sql.OpenDB(poolConnector{stdlib.GetPoolConnector(pool), pool})
	db.SetMaxIdleConns(0)
	s, err := sqlstore.New(ctx, db, dialect)
	if err != nil {
		return nil, fmt.Errorf("migrating: %w", err)
	}
	return s, nil
}

// poolConnector hands out the pool's connections to database/sql and
// closes the pool when the sql.DB is closed.
type poolConnector struct {
	driver.Connector
	pool *pgxpool.Pool
}

func (c poolConnector) Close() error {
	c.pool.Close()
	return nil
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// healthReason is the server's message and SQLSTATE; a connection that
// fails is only said to fail, since pgx's words name the host and user.
func healthReason(ctx context.Context, err error) string {
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		return fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	case ctx.Err() != nil:
		return "no answer in time"
	}
	return "cannot reach the database"
}
