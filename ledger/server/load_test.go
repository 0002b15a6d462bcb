package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// The load: loadRecords run records over loadClients skills, one client
// each, pushing concurrently; every loadDupEvery-th record of a skill is
// also delivered by the next client, as a duplicate the ledger must drop.
const (
	loadRecords  = 10000
	loadClients  = 8
	loadDupEvery = 10
)

// loadStores open a fresh store of each kind for the load.
var loadStores = []struct {
	name string
	open func(tb testing.TB) server.Store
}{
	{"sqlite", func(tb testing.TB) server.Store {
		s, err := sqlitestore.Open(context.Background(), filepath.Join(tb.TempDir(), "ledger.db"))
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}},
	{"postgres", func(tb testing.TB) server.Store {
		s, err := pgstore.Open(context.Background(), ledgertest.PostgresDSN(tb))
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}},
}

// loadSet is the records of one load, per client.
type loadSet struct {
	skills []string
	// own[c] are the records of client c's skill; dups[c] the records of
	// the next client's skill that c delivers again.
	own, dups [][][]byte
}

func newLoadSet() loadSet {
	ls := loadSet{own: make([][][]byte, loadClients), dups: make([][][]byte, loadClients)}
	for c := range loadClients {
		ls.skills = append(ls.skills, fmt.Sprintf("load-%d", c))
	}
	for i := range loadRecords {
		c := i % loadClients
		rec := ledgertest.Record(ls.skills[c], i, runlog.Passed, runlog.Unchecked)
		ls.own[c] = append(ls.own[c], rec)
		if i/loadClients%loadDupEvery == 0 {
			next := (c + 1) % loadClients
			ls.dups[next] = append(ls.dups[next], rec)
		}
	}
	return ls
}

// pushLoad uploads the skills, then has loadClients push clients send
// their records and duplicates concurrently, and returns how long the
// records took and how many answers were duplicates.
func pushLoad(tb testing.TB, url string, ls loadSet) (time.Duration, int) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}, Timeout: 30 * time.Second}
	client := &push.Client{Config: push.Config{BaseURL: url, Key: "rlk_load"}, HTTP: hc}
	ctx := context.Background()
	for _, s := range ls.skills {
		if _, err := client.UploadSkill(ctx, s, []byte("---\nname: "+s+"\n---\n")); err != nil {
			tb.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	dups := make([]int, loadClients)
	errs := make(chan error, loadClients)
	start := time.Now()
	for c := range loadClients {
		wg.Go(func() {
			send := func(skill string, recs [][]byte) {
				for _, rec := range recs {
					out := client.PushRun(ctx, skill, rec)
					if out.Kind != push.Pushed {
						errs <- fmt.Errorf("client %d: %+v", c, out)
						return
					}
					if out.Duplicate {
						dups[c]++
					}
				}
			}
			send(ls.skills[c], ls.own[c])
			send(ls.skills[(c+loadClients-1)%loadClients], ls.dups[c])
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	total := 0
	for _, d := range dups {
		total += d
	}
	return elapsed, total
}

// checkExactlyOnce reads every skill back and checks that each record is
// stored once: the counts add up and the idempotency keys are the
// records' own, without repeats.
func checkExactlyOnce(tb testing.TB, store server.Store, ls loadSet) {
	ctx := context.Background()
	seen := map[string]bool{}
	for c, s := range ls.skills {
		want := map[string]bool{}
		for _, rec := range ls.own[c] {
			want[wire.IdempotencyKey(s, rec)] = true
		}
		p := server.Page{Limit: 200}
		n := 0
		for {
			page, err := store.Runs(ctx, s, p)
			if err != nil {
				tb.Fatal(err)
			}
			for _, r := range page.Runs {
				if seen[r.IdempotencyKey] || !want[r.IdempotencyKey] {
					tb.Fatalf("skill %s: run %s stored twice or not pushed", s, r.ID)
				}
				seen[r.IdempotencyKey] = true
				n++
			}
			if page.Next == 0 {
				break
			}
			p.Before = page.Next
		}
		if n != len(want) {
			tb.Fatalf("skill %s: %d runs stored, want %d", s, n, len(want))
		}
	}
	if len(seen) != loadRecords {
		tb.Fatalf("%d runs stored, want %d", len(seen), loadRecords)
	}
}

// TestLoadExactlyOnce: 10,000 run records pushed by 8 concurrent clients,
// with 1,000 of them delivered twice, are stored exactly once, in both
// stores.
func TestLoadExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the load test pushes 11,000 requests")
	}
	ls := newLoadSet()
	for _, kind := range loadStores {
		t.Run(kind.name, func(t *testing.T) {
			store := kind.open(t)
			defer store.Close()
			srv := httptest.NewServer(server.NewServer(server.Config{Store: store, Logf: t.Logf}))
			defer srv.Close()
			elapsed, dups := pushLoad(t, srv.URL, ls)
			if want := loadRecords / loadDupEvery; dups != want {
				t.Errorf("%d duplicate answers, want %d", dups, want)
			}
			checkExactlyOnce(t, store, ls)
			t.Logf("%s: %d records in %v (%.0f records/s)", kind.name, loadRecords, elapsed, loadRecords/elapsed.Seconds())
		})
	}
}

// BenchmarkLedgerIngest measures the ledger's ingest rate: one op is the
// whole load (10,000 records and 1,000 duplicates by 8 concurrent push
// clients into a fresh store), reported as records/s. Run it with
//
//	go test ./ledger/server -run '^$' -bench LedgerIngest -benchtime 3x -benchmem
func BenchmarkLedgerIngest(b *testing.B) {
	ls := newLoadSet()
	for _, kind := range loadStores {
		b.Run(kind.name, func(b *testing.B) {
			var busy time.Duration
			for range b.N {
				b.StopTimer()
				store := kind.open(b)
				srv := httptest.NewServer(server.NewServer(server.Config{Store: store, Logf: b.Logf}))
				b.StartTimer()
				elapsed, _ := pushLoad(b, srv.URL, ls)
				busy += elapsed
				b.StopTimer()
				checkExactlyOnce(b, store, ls)
				srv.Close()
				store.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(loadRecords*b.N)/busy.Seconds(), "records/s")
		})
	}
}
