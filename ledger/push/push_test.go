package push_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// good is the i-th valid record of "weekly".
func good(i int) string {
	return string(ledgertest.Record("weekly", i, runlog.Passed, runlog.Unchecked))
}

// badShape is a record the ledger rejects with 400: an unknown outcome.
func badShape(i int) string {
	return strings.Replace(good(i), `"outcome":"passed"`, `"outcome":"ok"`, 1)
}

// step is one `reelier push` in a scenario and what it must do.
type step struct {
	all, withSkill bool
	// appendLines are added to the history before this push.
	appendLines []string
	runFaults   map[int]fault
	skillFaults map[int]fault
	// want*: the Result, the record indexes sent in order, the state's
	// cursor and rejection log afterwards.
	wantUpload           push.UploadStatus
	wantPushed, wantDups int
	wantRejected         int
	wantBefore           int
	wantAfter            int
	wantStopped          string
	wantSent             []int
	wantLog              []int
}

// TestPushContract walks every row of the push contract (spec §8.2, §8.3,
// §8.3a) through real pushes against a real ledger on loopback, for both
// stores: cursor arithmetic, mid-batch 400 and 413, a 401 and other
// statuses mid-batch, a network error, a failed skill upload, --all twice
// over a permanent rejection, a partial --all lowering the cursor,
// --with-skill, and the odd answers (200, a bare 202). After each scenario
// every valid record is on the ledger exactly once.
func TestPushContract(t *testing.T) {
	scenarios := []struct {
		name    string
		history []string
		steps   []step
		// wantStored is the number of runs the ledger must hold at the end.
		wantStored int
	}{
		{"cursor arithmetic", []string{good(0), good(1), good(2)}, []step{
			{wantUpload: push.Uploaded, wantPushed: 3, wantAfter: 3, wantSent: []int{0, 1, 2}},
			{appendLines: []string{good(3), good(4)}, wantUpload: push.AlreadyUploaded, wantPushed: 2, wantBefore: 3, wantAfter: 5, wantSent: []int{3, 4}},
			{wantBefore: 5, wantAfter: 5},
		}, 5},
		{"mid-batch 400", []string{good(0), badShape(1), good(2)}, []step{
			{wantUpload: push.Uploaded, wantPushed: 2, wantRejected: 1, wantAfter: 3, wantSent: []int{0, 1, 2}, wantLog: []int{1}},
		}, 2},
		{"mid-batch 413", []string{good(0), bigRecord("weekly", 1, 5000), good(2)}, []step{
			{wantUpload: push.Uploaded, wantPushed: 2, wantRejected: 1, wantAfter: 3, wantSent: []int{0, 1, 2}, wantLog: []int{1}},
		}, 2},
		{"401 mid-batch stops and resumes", []string{good(0), good(1), good(2)}, []step{
			{runFaults: map[int]fault{1: {status: 401, body: `{"error":"unknown API key"}`}},
				wantUpload: push.Uploaded, wantPushed: 1, wantAfter: 1, wantStopped: "refused the API key (401)", wantSent: []int{0, 1}},
			{wantPushed: 2, wantBefore: 1, wantAfter: 3, wantSent: []int{1, 2}},
		}, 3},
		{"503 mid-batch is transient", []string{good(0), good(1)}, []step{
			{runFaults: map[int]fault{0: {status: 503, body: `{"error":"the ledger's database is unavailable"}`}},
				wantUpload: push.Uploaded, wantStopped: "503 Service Unavailable: {\"error\":\"the ledger's database is unavailable\"}", wantSent: []int{0}},
			{wantPushed: 2, wantAfter: 2, wantSent: []int{0, 1}},
		}, 2},
		{"network error mid-batch", []string{good(0), good(1), good(2)}, []step{
			{runFaults: map[int]fault{1: {hangup: true}}, wantUpload: push.Uploaded, wantPushed: 1, wantAfter: 1, wantStopped: "EOF", wantSent: []int{0, 1}},
			{wantPushed: 2, wantBefore: 1, wantAfter: 3, wantSent: []int{1, 2}},
		}, 3},
		{"skill upload 401 aborts before any record", []string{good(0)}, []step{
			{skillFaults: map[int]fault{0: {status: 401}}, wantUpload: push.UploadFailed, wantStopped: "refused the API key (401)"},
			{wantUpload: push.Uploaded, wantPushed: 1, wantAfter: 1, wantSent: []int{0}},
		}, 1},
		{"skill upload error quotes 500 characters of the body", []string{good(0)}, []step{
			{skillFaults: map[int]fault{0: {status: 500, body: strings.Repeat("x", 600)}},
				wantUpload: push.UploadFailed, wantStopped: "500 Internal Server Error: " + strings.Repeat("x", 500) + "…"},
		}, 0},
		{"--all twice over a permanent rejection", []string{good(0), badShape(1), good(2)}, []step{
			{all: true, wantUpload: push.Uploaded, wantPushed: 2, wantRejected: 1, wantAfter: 3, wantSent: []int{0, 1, 2}, wantLog: []int{1}},
			{all: true, wantPushed: 2, wantDups: 2, wantRejected: 1, wantAfter: 3, wantSent: []int{0, 1, 2}, wantLog: []int{1, 1}},
		}, 2},
		{"a partial --all lowers the cursor", []string{good(0), good(1), good(2), good(3)}, []step{
			{wantUpload: push.Uploaded, wantPushed: 4, wantAfter: 4, wantSent: []int{0, 1, 2, 3}},
			{all: true, runFaults: map[int]fault{2: {status: 401}}, wantPushed: 2, wantDups: 2, wantAfter: 2, wantStopped: "401", wantSent: []int{0, 1, 2}},
			{wantPushed: 2, wantDups: 2, wantBefore: 2, wantAfter: 4, wantSent: []int{2, 3}},
		}, 4},
		{"--with-skill uploads again", []string{good(0)}, []step{
			{wantUpload: push.Uploaded, wantPushed: 1, wantAfter: 1, wantSent: []int{0}},
			{withSkill: true, wantUpload: push.Uploaded, wantBefore: 1, wantAfter: 1},
		}, 1},
		{"200 is not 202: transient", []string{good(0)}, []step{
			{runFaults: map[int]fault{0: {status: 200, body: `{"id":"x"}`}}, wantUpload: push.Uploaded, wantStopped: "200 OK", wantSent: []int{0}},
		}, 0},
		{"a bare 202 counts as pushed", []string{good(0), good(1)}, []step{
			{runFaults: map[int]fault{0: {status: 202}}, wantUpload: push.Uploaded, wantPushed: 2, wantAfter: 2, wantSent: []int{0, 1}},
		}, 1},
		{"a line that is not JSON is rejected without sending", []string{good(0), `{"skill": "weekly", "steps": [`, good(2)}, []step{
			{wantUpload: push.Uploaded, wantPushed: 2, wantRejected: 1, wantAfter: 3, wantSent: []int{0, 2}, wantLog: []int{1}},
		}, 2},
	}
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					w := newWire(t, kind.open(t), 4096)
					d := newWorkdir(t, "weekly")
					d.appendLines(t, sc.history...)
					for i, l := range append(append([]string{}, sc.history...), allAppended(sc.steps)...) {
						w.index[cloudKey(l)] = i
					}
					for n, st := range sc.steps {
						d.appendLines(t, st.appendLines...)
						w.plan(st.runFaults, st.skillFaults)
						opts := d.options(w.client())
						opts.All, opts.WithSkill = st.all, st.withSkill
						res, err := push.Push(context.Background(), opts)
						if err != nil {
							t.Fatalf("push %d: %v", n+1, err)
						}
						checkStep(t, n+1, st, res, w.sentNow(), d.readState(t))
					}
					if got := w.storedRuns("weekly"); got != sc.wantStored {
						t.Errorf("the ledger holds %d runs, want %d (each valid record exactly once)", got, sc.wantStored)
					}
				})
			}
		})
	}
}

func allAppended(steps []step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.appendLines...)
	}
	return out
}

func checkStep(t *testing.T, n int, st step, res push.Result, sent []int, state push.State) {
	t.Helper()
	if res.Upload != st.wantUpload || res.Pushed != st.wantPushed || res.Duplicates != st.wantDups || res.Rejected != st.wantRejected ||
		res.CursorBefore != st.wantBefore || res.CursorAfter != st.wantAfter {
		t.Errorf("push %d: upload %d, pushed %d (%d dups), rejected %d, cursor %d -> %d\nwant upload %d, pushed %d (%d dups), rejected %d, cursor %d -> %d",
			n, res.Upload, res.Pushed, res.Duplicates, res.Rejected, res.CursorBefore, res.CursorAfter,
			st.wantUpload, st.wantPushed, st.wantDups, st.wantRejected, st.wantBefore, st.wantAfter)
	}
	switch {
	case st.wantStopped == "" && res.Stopped != nil:
		t.Errorf("push %d stopped: %v", n, res.Stopped)
	case st.wantStopped != "" && (res.Stopped == nil || !strings.Contains(res.Stopped.Error(), st.wantStopped)):
		t.Errorf("push %d: stopped with %v, want an error containing %q", n, res.Stopped, st.wantStopped)
	case st.wantStopped != "" && strings.Contains(res.Stopped.Error(), "rlk_test"):
		t.Errorf("push %d: the error shows the key: %v", n, res.Stopped)
	}
	if !slices.Equal(sent, st.wantSent) {
		t.Errorf("push %d sent records %v, want %v", n, sent, st.wantSent)
	}
	if s := state["weekly"]; st.wantUpload != push.UploadFailed && (s == nil || s.Pushed != st.wantAfter) {
		t.Errorf("push %d: state %s, want the cursor at %d", n, mustJSON(state), st.wantAfter)
	}
	if got := rejectedIndexes(state, "weekly"); !slices.Equal(got, st.wantLog) {
		t.Errorf("push %d: rejection log %v, want %v", n, got, st.wantLog)
	}
}
