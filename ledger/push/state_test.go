package push_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gofrs/flock"
	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/wire"
)

// TestCorruptStateIsSetAside: a state file that is not JSON is renamed to
// push-state.json.corrupt-<epoch-ms> with its bytes intact, the push starts
// from record 0 and writes a fresh state; the ledger recognises the records
// it already had.
func TestCorruptStateIsSetAside(t *testing.T) {
	for _, corrupt := range []string{"{\"weekly\": {\"pushed\": 2", "[1, 2]", `{"weekly": {"pushed": -1}}`, `{"weekly": {"pushed": "two"}}`, `{"version": 2, "ledgers": {"http://x": {"weekly": {"pushed": -1}}}}`, `{"version": 2, "ledgers": [1]}`} {
		t.Run(corrupt, func(t *testing.T) {
			w := newWire(t, storeKinds[0].open(t), 0)
			d := newWorkdir(t, "weekly")
			d.appendLines(t, good(0), good(1))
			if _, err := push.Push(context.Background(), d.options(w.client())); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(d.state, []byte(corrupt), 0o644); err != nil {
				t.Fatal(err)
			}
			var events []push.Event
			opts := d.options(w.client())
			opts.Report = func(e push.Event) { events = append(events, e) }
			res, err := push.Push(context.Background(), opts)
			if err != nil || res.Stopped != nil {
				t.Fatal(err, res.Stopped)
			}
			if len(events) == 0 || events[0].Kind != push.StateSetAside {
				t.Fatalf("first event %+v, want StateSetAside", events)
			}
			aside := events[0].Path
			want := d.state + ".corrupt-" + "1784383200000" // ledgertest.Base in epoch ms
			if aside != want {
				t.Errorf("set aside to %s, want %s", aside, want)
			}
			if b, err := os.ReadFile(aside); err != nil || string(b) != corrupt {
				t.Errorf("the corrupt bytes were not kept: %q, %v", b, err)
			}
			if res.CursorBefore != 0 || res.CursorAfter != 2 || res.Duplicates != 2 || res.Upload != push.Uploaded {
				t.Errorf("result %+v; want a fresh start that re-sends both records (the ledger has them)", res)
			}
			if st := d.readState(t); st["weekly"] == nil || st["weekly"].Pushed != 2 {
				t.Errorf("fresh state %s", mustJSON(st))
			}
			if got := w.storedRuns("weekly"); got != 2 {
				t.Errorf("ledger holds %d runs, want 2", got)
			}
		})
	}
}

// TestInterruptedBetweenAcceptAndCursor: the ledger accepts record 1 and
// the push dies before it can save the cursor (the state directory is
// swapped for a file at that moment). The next push re-sends exactly that
// record, first, and the ledger drops the copy by its idempotency key.
func TestInterruptedBetweenAcceptAndCursor(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			w := newWire(t, kind.open(t), 0)
			d := newWorkdir(t, "weekly")
			lines := []string{good(0), good(1), good(2)}
			d.appendLines(t, lines...)
			for i, l := range lines {
				w.index[cloudKey(l)] = i
			}
			stateDir := filepath.Dir(d.state)
			hidden := stateDir + ".hidden"
			crash := func() {
				must(t, os.Rename(stateDir, hidden))
				must(t, os.WriteFile(stateDir, []byte("not a directory"), 0o644))
			}
			w.plan(map[int]fault{1: {after: crash}}, nil)
			res, err := push.Push(context.Background(), d.options(w.client()))
			if err == nil || !strings.Contains(err.Error(), "record 1 reached the ledger but the cursor could not be saved") {
				t.Fatalf("push error %v, want the cursor-save failure after record 1", err)
			}
			if res.CursorAfter != 1 || !slices.Equal(w.sentNow(), []int{0, 1}) {
				t.Errorf("cursor %d after sending %v; want 1 after [0 1]", res.CursorAfter, w.sentNow())
			}
			// "Restart": the directory is back as the crash left it.
			must(t, os.Remove(stateDir))
			must(t, os.Rename(hidden, stateDir))
			if st := d.readState(t); st["weekly"].Pushed != 1 {
				t.Fatalf("state after the crash: %s", mustJSON(st))
			}
			w.plan(nil, nil)
			res, err = push.Push(context.Background(), d.options(w.client()))
			if err != nil || res.Stopped != nil {
				t.Fatal(err, res.Stopped)
			}
			if sent := w.sentNow(); !slices.Equal(sent, []int{1, 2}) || res.Duplicates != 1 || res.Pushed != 2 {
				t.Errorf("resumed push sent %v with %d duplicate(s); want [1 2] with 1", sent, res.Duplicates)
			}
			if got := w.storedRuns("weekly"); got != 3 {
				t.Errorf("ledger holds %d runs, want 3: record 1 exactly once", got)
			}
		})
	}
}

// TestPushesTakeTurns: a push that finds the state locked waits, says so,
// and once the lock is released reads the cursor the other push left.
func TestPushesTakeTurns(t *testing.T) {
	w := newWire(t, storeKinds[0].open(t), 0)
	d := newWorkdir(t, "weekly")
	d.appendLines(t, good(0), good(1))
	must(t, os.MkdirAll(filepath.Dir(d.state), 0o755))
	other := flock.New(d.state + ".lock")
	must(t, other.Lock())
	waiting := make(chan struct{})
	var once sync.Once
	opts := d.options(w.client())
	opts.Report = func(e push.Event) {
		if e.Kind == push.Waiting {
			once.Do(func() { close(waiting) })
		}
	}
	done := make(chan push.Result)
	go func() {
		res, err := push.Push(context.Background(), opts)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-waiting
	if len(w.sentNow()) != 0 {
		t.Fatal("the waiting push sent before it had the lock")
	}
	// The other push finishes having consumed both records.
	must(t, os.WriteFile(d.state, []byte(`{"weekly":{"pushed":2,"skillUploaded":true}}`), 0o644))
	must(t, other.Unlock())
	res := <-done
	if res.CursorBefore != 2 || res.CursorAfter != 2 || res.Pushed != 0 || len(w.sentNow()) != 0 {
		t.Errorf("after waiting: %+v, sent %v; want the other push's cursor and nothing re-sent", res, w.sentNow())
	}
}

// TestCursorPastEnd: a history shorter than the cursor (truncated or
// replaced) sends nothing, keeps the cursor and says so.
func TestCursorPastEnd(t *testing.T) {
	w := newWire(t, storeKinds[0].open(t), 0)
	d := newWorkdir(t, "weekly")
	d.appendLines(t, good(0))
	must(t, os.MkdirAll(filepath.Dir(d.state), 0o755))
	sha := wire.SkillHash(d.options(nil).SkillMd)
	must(t, os.WriteFile(d.state, []byte(`{"weekly":{"pushed":5,"skillUploaded":true,"skillSha256":"`+sha+`"}}`), 0o644))
	var kinds []push.EventKind
	opts := d.options(w.client())
	opts.Report = func(e push.Event) { kinds = append(kinds, e.Kind) }
	res, err := push.Push(context.Background(), opts)
	if err != nil || res.CursorAfter != 5 || !slices.Equal(kinds, []push.EventKind{push.CursorPastEnd}) || len(w.sentNow()) != 0 {
		t.Errorf("result %+v, events %v, sent %v, err %v", res, kinds, w.sentNow(), err)
	}
}

// TestDryRun plans from the files alone: it resolves no configuration,
// opens no connection, and writes nothing, not even the lock file.
func TestDryRun(t *testing.T) {
	w := newWire(t, storeKinds[0].open(t), 0)
	d := newWorkdir(t, "weekly")
	d.appendLines(t, good(0), good(1), good(2))
	must(t, os.MkdirAll(filepath.Dir(d.state), 0o755))
	sha := wire.SkillHash(d.options(nil).SkillMd)
	tests := []struct {
		name, state     string
		all, withSkill  bool
		upload          bool
		from, to, count int
		corrupt         bool
	}{
		{"no state", "", false, false, true, 0, 3, 3, false},
		{"cursor 1", `{"weekly":{"pushed":1,"skillUploaded":true,"skillSha256":"` + sha + `"}}`, false, false, false, 1, 3, 2, false},
		{"cursor 1 --all --with-skill", `{"weekly":{"pushed":1,"skillUploaded":true,"skillSha256":"` + sha + `"}}`, true, true, true, 0, 3, 3, false},
		{"up to date", `{"weekly":{"pushed":3,"skillUploaded":true,"skillSha256":"` + sha + `"}}`, false, false, false, 3, 3, 0, false},
		{"skill file changed", `{"weekly":{"pushed":3,"skillUploaded":true,"skillSha256":"` + strings.Repeat("0", 64) + `"}}`, false, false, true, 3, 3, 0, false},
		{"state from before content hashes", `{"weekly":{"pushed":3,"skillUploaded":true}}`, false, false, true, 3, 3, 0, false},
		{"corrupt state", `{"weekly":`, false, false, true, 0, 3, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(d.state)
			if tt.state != "" {
				must(t, os.WriteFile(d.state, []byte(tt.state), 0o644))
			}
			before := snapshot(t, filepath.Dir(d.state))
			opts := d.options(w.client()) // a live ledger it must not touch
			opts.All, opts.WithSkill = tt.all, tt.withSkill
			p, err := push.DryRun(opts)
			if err != nil {
				t.Fatal(err)
			}
			if p.UploadSkill != tt.upload || p.From != tt.from || p.To != tt.to || p.Count() != tt.count || (p.StateCorrupt != nil) != tt.corrupt {
				t.Errorf("plan %+v", p)
			}
			if after := snapshot(t, filepath.Dir(d.state)); after != before {
				t.Errorf("the dry run changed the state directory:\n%s\nthen\n%s", before, after)
			}
			if n := w.connections(); n != 0 {
				t.Errorf("the dry run opened %d connection(s) to the ledger", n)
			}
		})
	}
}

// snapshot lists a directory's entries with their contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + ": " + string(data) + "\n")
	}
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStatePerLedger: the state file keeps a cursor per ledger. A
// version-1 file (one state, for whichever ledger it was) is kept as it
// was and adopted by the next push, which goes on from its cursor; a push
// to a second ledger starts there from record 0 with the skill upload
// (never a 404), and leaves the first ledger's cursor alone.
func TestStatePerLedger(t *testing.T) {
	first, second := newWire(t, storeKinds[0].open(t), 0), newWire(t, storeKinds[0].open(t), 0)
	for i := range 3 {
		first.index[cloudKey(good(i))], second.index[cloudKey(good(i))] = i, i
	}
	d := newWorkdir(t, "weekly")
	d.appendLines(t, good(0), good(1))
	if _, err := push.Push(context.Background(), d.options(first.client())); err != nil {
		t.Fatal(err)
	}
	// What a push before per-ledger state wrote: the same cursor, one level
	// down, with a rejection logged.
	legacy := `{"weekly": {"pushed": 2, "skillUploaded": true, "skillSha256": "` + wire.SkillHash([]byte("---\nname: weekly\n---\n")) + `", "rejected": [{"index": 1, "reason": "kept", "at": "2026-07-18T14:00:00.000Z"}]}}`
	if err := os.WriteFile(d.state, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	if plan, err := push.DryRun(d.options(nil)); err != nil || plan.From != 2 || plan.UploadSkill {
		t.Errorf("dry run over a version-1 state: %+v, %v; want its cursor", plan, err)
	}
	d.appendLines(t, good(2))
	first.plan(nil, nil)
	res, err := push.Push(context.Background(), d.options(first.client()))
	if err != nil || res.CursorBefore != 2 || res.CursorAfter != 3 || res.Upload != push.AlreadyUploaded || !slices.Equal(first.sentNow(), []int{2}) {
		t.Fatalf("the first push after the upgrade: %+v, %v, sent %v; want record 2 alone", res, err, first.sentNow())
	}
	second.plan(nil, nil)
	res, err = push.Push(context.Background(), d.options(second.client()))
	if err != nil || res.Stopped != nil || res.Upload != push.Uploaded || res.CursorBefore != 0 || res.Pushed != 3 || !slices.Equal(second.sentNow(), []int{0, 1, 2}) {
		t.Fatalf("a push to a second ledger: %+v, %v, sent %v; want the skill then every record", res, err, second.sentNow())
	}
	if got := second.storedRuns("weekly"); got != 3 {
		t.Errorf("the second ledger holds %d runs, want 3", got)
	}
	for _, c := range []struct {
		url    string
		pushed int
		reject int
	}{{first.client().Config.BaseURL, 3, 1}, {second.client().Config.BaseURL, 3, 0}} {
		st, err := push.ReadState(d.state, c.url)
		if err != nil || st["weekly"] == nil || st["weekly"].Pushed != c.pushed || len(st["weekly"].Rejected) != c.reject {
			t.Errorf("state of %s: %s, %v; want cursor %d and %d rejection(s) kept", c.url, mustJSON(st), err, c.pushed, c.reject)
		}
	}
	data, _ := os.ReadFile(d.state)
	if !strings.HasPrefix(string(data), "{\n  \"version\": 2,\n  \"ledgers\": {") || strings.Contains(string(data), `"": {`) {
		t.Errorf("the state file after the upgrade:\n%s", data)
	}
	// A dry run names the ledger it plans for.
	third := d.options(nil)
	third.Ledger = "http://127.0.0.1:1"
	if plan, err := push.DryRun(third); err != nil || plan.From != 0 || !plan.UploadSkill {
		t.Errorf("dry run for a ledger the state has not seen: %+v, %v", plan, err)
	}
}
