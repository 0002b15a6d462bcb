// Package stores opens a ledger store from the one-string form the command
// line takes: "sqlite:PATH" for the embedded store, or a postgres:// (or
// postgresql://) URL for PostgreSQL.
package stores

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
)

// Default is the store used when none is named.
const Default = "sqlite:.reelier/ledger.db"

// ErrUnknownKind is returned (wrapped) for a store string that names
// neither kind of store, or a sqlite: store without a path.
var ErrUnknownKind = errors.New("unknown kind of store")

// Open opens the store named by dsn, applying pending migrations. Errors
// never quote dsn, which may hold a password; use Redact to show it.
func Open(ctx context.Context, dsn string) (server.Store, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			return nil, fmt.Errorf("%w: the sqlite: store needs a file path, as in %s", ErrUnknownKind, Default)
		}
		return sqlitestore.Open(ctx, path)
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return pgstore.Open(ctx, dsn)
	}
	return nil, fmt.Errorf("%w %q: use sqlite:PATH or a postgres:// URL", ErrUnknownKind, Redact(dsn))
}

// Redact returns dsn fit to print: a PostgreSQL URL's password is masked.
func Redact(dsn string) string {
	if strings.HasPrefix(dsn, "sqlite:") {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "(a connection string)" // not a URL, and it may hold a password
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
