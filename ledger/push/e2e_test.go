package push_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestEndToEndPaging pushes a history with a permanently rejected record
// to a ledger, pushes it all again with --all (every record a duplicate),
// and reads it back through the ledger's paged API: every valid record
// exactly once, newest first, byte for byte as in the history file.
func TestEndToEndPaging(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			w := newWire(t, kind.open(t), 0)
			d := newWorkdir(t, "weekly")
			var valid []string
			for i := range 23 {
				l := good(i)
				if i == 11 {
					l = badShape(i)
				} else {
					valid = append(valid, l)
				}
				d.appendLines(t, l)
			}
			res, err := push.Push(context.Background(), d.options(w.client()))
			if err != nil || res.Pushed != 22 || res.Rejected != 1 || res.CursorAfter != 23 {
				t.Fatalf("first push %+v, %v", res, err)
			}
			opts := d.options(w.client())
			opts.All = true
			res, err = push.Push(context.Background(), opts)
			if err != nil || res.Pushed != 22 || res.Duplicates != 22 || res.Rejected != 1 {
				t.Fatalf("--all push %+v, %v", res, err)
			}
			got := readAll(t, w.srv.URL+wire.SkillsPath+"/weekly/runs?limit=5")
			slices.Reverse(valid)
			if !slices.Equal(got, valid) {
				t.Errorf("paged read-back has %d records; want the %d valid ones newest first, unchanged", len(got), len(valid))
			}
		})
	}
}

// readAll follows "next" through every page and returns the records.
func readAll(t *testing.T, first string) []string {
	t.Helper()
	var out []string
	next := first
	for pages := 0; next != ""; pages++ {
		resp, err := http.Get(next)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var page struct {
			Runs []struct {
				Record json.RawMessage `json:"record"`
			} `json:"runs"`
			Next string `json:"next"`
		}
		if err := json.Unmarshal(body, &page); err != nil || resp.StatusCode != 200 || pages > 10 || len(page.Runs) > 5 {
			t.Fatalf("GET %s: %d %s", next, resp.StatusCode, body)
		}
		for _, r := range page.Runs {
			out = append(out, string(r.Record))
		}
		next = ""
		if page.Next != "" {
			next = first + "&before=" + page.Next
		}
	}
	return out
}

// TestDatabaseDownIsTransient cuts the ledger's PostgreSQL connection:
// the ledger answers 503 (also on /healthz), the push stops with its
// cursor on the record, and once the database is back the next push
// delivers exactly that record.
func TestDatabaseDownIsTransient(t *testing.T) {
	dsn := ledgertest.PostgresDSN(t)
	proxy := ledgertest.NewProxy(t, ledgertest.PostgresAddr(t, dsn))
	store, err := pgstore.Open(context.Background(), proxy.Through(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	w := newWire(t, store, 0)
	d := newWorkdir(t, "weekly")
	d.appendLines(t, good(0), good(1))
	if res, err := push.Push(context.Background(), d.options(w.client())); err != nil || res.CursorAfter != 2 {
		t.Fatalf("push while up: %+v %v", res, err)
	}

	proxy.SetDown(true)
	d.appendLines(t, good(2))
	res, err := push.Push(context.Background(), d.options(w.client()))
	if err != nil || res.Stopped == nil || !strings.Contains(res.Stopped.Error(), "503 Service Unavailable") || res.CursorAfter != 2 {
		t.Fatalf("push while down: %+v, %v; want a 503 stop with the cursor at 2", res, err)
	}
	if resp, err := http.Get(w.srv.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz while down: %v %v", resp, err)
	}

	proxy.SetDown(false)
	w.index[cloudKey(good(2))] = 2
	w.plan(nil, nil)
	res, err = push.Push(context.Background(), d.options(w.client()))
	if err != nil || res.Stopped != nil || res.Pushed != 1 || !slices.Equal(w.sentNow(), []int{2}) {
		t.Fatalf("push after recovery: %+v, %v, sent %v", res, err, w.sentNow())
	}
	if got := w.storedRuns("weekly"); got != 3 {
		t.Errorf("ledger holds %d runs, want 3", got)
	}
}
