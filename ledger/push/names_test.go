package push_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestPushBadSkillName: a skill whose name breaks the Agent Skills name
// rules is refused by the ledger with the rule. The skill upload's 400
// stops the push with the ledger's words; past a skill upload that is not
// sent, every record is rejected on its own, the rule in its reason, and
// nothing is stored. On every store.
func TestPushBadSkillName(t *testing.T) {
	const name = "Weekly Report"
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			w := newWire(t, kind.open(t), 0)
			d := newWorkdir(t, "weekly-report")
			d.skill = name
			d.appendLines(t, string(ledgertest.Record(name, 0, runlog.Passed)), string(ledgertest.Record(name, 1, runlog.Failed)))
			res, err := push.Push(context.Background(), d.options(w.client()))
			if err != nil || res.Stopped == nil || !strings.Contains(res.Stopped.Error(), "400") || !strings.Contains(res.Stopped.Error(), "Agent Skills name rules") {
				t.Fatalf("push with the skill upload: %+v, %v", res, err)
			}
			// The ledger is told the skill upload went through (a fault
			// answer), so each record reaches it on its own.
			w.plan(nil, map[int]fault{0: {status: 200, body: `{"name":"x","version":1,"sha256":""}`}})
			res, err = push.Push(context.Background(), d.options(w.client()))
			if err != nil || res.Stopped != nil || res.Rejected != 2 || res.Pushed != 0 {
				t.Fatalf("push of the records: %+v, %v", res, err)
			}
			for _, r := range d.readState(t)[name].Rejected {
				if !strings.Contains(r.Reason, "Agent Skills name rules") {
					t.Errorf("record %d rejected for %q, which does not state the rule", r.Index, r.Reason)
				}
			}
			if n := w.storedRuns(name); n != 0 {
				t.Errorf("the ledger stored %d runs", n)
			}
		})
	}
}
