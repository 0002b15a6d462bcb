package stores_test

import (
	"context"
	"errors"
	"testing"

	"github.com/reelier/reelier/ledger/stores"
)

func TestRedact(t *testing.T) {
	for dsn, want := range map[string]string{
		"sqlite:.reelier/ledger.db":                       "sqlite:.reelier/ledger.db",
		"postgres://reelier:s3cret@db:5432/x?sslmode=off": "postgres://reelier:xxxxx@db:5432/x?sslmode=off",
		"postgres://reelier@db/x?password=s3cret":         "postgres://reelier@db/x?password=xxxxx",
		"host=db user=reelier password=s3cret":            "(a connection string)",
		"postgresql://u@127.0.0.1/x?search_path=t_1&x=1":  "postgresql://u@127.0.0.1/x?search_path=t_1&x=1",
	} {
		if got := stores.Redact(dsn); got != want {
			t.Errorf("Redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}

func TestOpenUnknownKind(t *testing.T) {
	for _, dsn := range []string{"mysql://root@db/x", "sqlite:", "ledger.db", ""} {
		if _, err := stores.Open(context.Background(), dsn); !errors.Is(err, stores.ErrUnknownKind) {
			t.Errorf("Open(%q) err = %v, want ErrUnknownKind", dsn, err)
		}
	}
}
