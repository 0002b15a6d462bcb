package receipt

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
)

// TestWriteHealChange shows what a healed step's receipt says about the
// change: the step's lines before and after (as the record's why keeps
// them), and where the heal went: written back, proposed only, or not
// saved.
func TestWriteHealChange(t *testing.T) {
	usage := &runlog.LLMUsage{InputTokens: 812, OutputTokens: 64}
	why := &runlog.Why{Change: "L1: the API now wraps the booking in a data object",
		Before: []string{"- assert: json.id == \"bk_1\"", "- bind: id = json.id"},
		After:  []string{"- assert: json.data.id == \"bk_1\"", "- bind: id = json.data.id"}}
	tests := []struct {
		name string
		why  *runlog.Why
		h    replay.Healing
	}{
		{"written back", why, replay.Healing{}},
		{"proposed", why, replay.Healing{Proposal: "--- booking.skill.md.orig\n+++ booking.skill.md\n"}},
		{"not saved", why, replay.Healing{NotSaved: errors.New("booking.skill.md is read-only (mode -r--r--r--)")}},
		{"an assert added", &runlog.Why{Change: "L1: r", After: []string{"- assert: json.data.guests >= 1"}}, replay.Healing{}},
		{"nothing changed", &runlog.Why{Change: "L2: the service was briefly unavailable"}, replay.Healing{Level: 2, Attempted: 2}},
	}
	var b bytes.Buffer
	for _, tt := range tests {
		h := tt.h
		if h.Level == 0 {
			h.Level, h.Attempted = 1, 1
		}
		h.Reason, h.Usage = "the API now wraps the booking in a data object", usage
		sr := &replay.StepResult{Record: &runlog.StepRecord{N: 1, Title: "Fetch the booking", Level: h.Level, Outcome: runlog.Passed, LLM: usage, Why: tt.why}, Heal: &h}
		fmt.Fprintf(&b, "==== %s\n", tt.name)
		writeHeal(&b, sr, Style{})
	}
	testutil.Golden(t).Assert(t, "heal", b.Bytes())
}
