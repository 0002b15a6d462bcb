package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestInterruptedRunStored: a run stopped before it finished (a cancelled
// CI job) is accepted (202; it was answered 503 forever, which kept every
// later record of the skill from being pushed), read back as interrupted,
// and never counted as passed.
func TestInterruptedRunStored(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "weekly")
	var r runlog.Record
	json.Unmarshal(ledgertest.Record("weekly", 0, runlog.Passed, runlog.Skipped), &r)
	r.Steps[1].Skip = "interrupted"
	r.Finish(true)
	line, _ := runlog.Marshal(&r)
	status, body := l.pushRun(t, "weekly", line)
	if status != 202 {
		t.Fatalf("interrupted run: %d %s, want 202", status, body)
	}
	var a wire.Accepted
	json.Unmarshal(body, &a)
	_, list := l.do(t, "GET", wire.SkillsPath, nil, nil)
	if !strings.Contains(string(list), `"passed":0,"failed":0,"unchecked":0,"interrupted":1`) || !strings.Contains(string(list), `"verdict":"interrupted"`) {
		t.Errorf("skills list: %s", list)
	}
	if _, page := l.do(t, "GET", "/runs/"+a.ID, nil, nil); !strings.Contains(string(page), `data-verdict="interrupted"`) {
		t.Errorf("the receipt does not say interrupted")
	}
}
