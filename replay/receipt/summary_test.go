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

// TestSummaryMarkdown: the summary's heading says the record's verdict —
// interrupted and unchecked are neither passed nor failed — and skipped
// steps say why they did not run. (cli's TestSummary covers the
// command end to end.)
func TestSummaryMarkdown(t *testing.T) {
	ran := runlog.StepRecord{N: 1, Title: "List", Outcome: runlog.Passed, Ms: 300}
	var drift *runlog.ToolDrift
	record := func(v runlog.Verdict, steps ...runlog.StepRecord) *runlog.History {
		r := runlog.Record{Skill: "weekly", StartedAt: "2026-07-20T08:00:00.000Z", FinishedAt: "2026-07-20T08:00:01.000Z", Steps: steps, ToolDrift: drift}
		r.Finish(v == runlog.VerdictInterrupted)
		return &runlog.History{Entries: []runlog.Entry{{Line: 1, Record: r}}}
	}
	driftRecord := func(ignored bool) *runlog.History {
		drift = &runlog.ToolDrift{Ignored: ignored, Tools: []runlog.DriftedTool{{Server: "memory", Tool: "create_entities", Changes: []string{"input field entities[].priority added (number, optional)"}}}}
		defer func() { drift = nil }()
		if ignored {
			return record(runlog.VerdictPassed, ran)
		}
		return record(runlog.VerdictFailed, runlog.StepRecord{N: 1, Title: "List", Outcome: runlog.Skipped, Skip: replay.SkipToolDrift})
	}
	tests := []struct {
		name    string
		history *runlog.History
	}{
		{"interrupted", record(runlog.VerdictInterrupted, ran,
			runlog.StepRecord{N: 2, Title: "Open", Outcome: runlog.Skipped, Skip: replay.SkipInterrupted},
			runlog.StepRecord{N: 3, Title: "Close", Outcome: runlog.Skipped, Skip: replay.SkipInterrupted})},
		{"interrupted in flight", record(runlog.VerdictInterrupted, ran,
			runlog.StepRecord{N: 2, Title: "Delete", Outcome: runlog.Interrupted, Ms: 40, Action: &runlog.ActionRecord{Tool: "delete_item", Args: []byte(`{"id":"it_1"}`)}},
			runlog.StepRecord{N: 3, Title: "Close", Outcome: runlog.Skipped, Skip: replay.SkipInterrupted})},
		{"write gate", record(runlog.VerdictUnchecked,
			runlog.StepRecord{N: 1, Title: "Ping", Outcome: runlog.Unchecked, Ms: 20},
			runlog.StepRecord{N: 2, Title: "Upsert", Outcome: runlog.Skipped, Skip: replay.SkipWriteGate},
			runlog.StepRecord{N: 3, Title: "Read back", Outcome: runlog.Skipped, Skip: "needs {{id}}, which step 2 would have bound"})},
		{"torn newest", &runlog.History{Entries: record(runlog.VerdictPassed, ran).Entries,
			Corrupt: []runlog.Corrupt{{Line: 2, Err: errors.New("unexpected end of JSON input")}}}},
		{"tool drift", driftRecord(false)},
		{"tool drift ignored", driftRecord(true)},
		{"open questions", func() *runlog.History {
			h := record(runlog.VerdictPassed, ran)
			h.Entries[0].Record.Path = "skills/weekly.skill.md"
			h.Entries[0].Record.OpenQuestions = []runlog.OpenQuestion{{Line: 12, Step: 1}, {Line: 30, Step: 3}, {Line: 41}}
			return h
		}()},
		{"corrupt older", &runlog.History{Entries: []runlog.Entry{{Line: 2, Record: record(runlog.VerdictPassed, ran).Entries[0].Record}},
			Corrupt: []runlog.Corrupt{{Line: 1, Err: errors.New("invalid character 'x'")}}}},
	}
	var b bytes.Buffer
	for _, tt := range tests {
		fmt.Fprintf(&b, "==== %s\n", tt.name)
		if err := (Summary{Path: ".reelier/runs/weekly.jsonl", History: tt.history}).Markdown(&b); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Golden(t).Assert(t, "summaries", b.Bytes())
}

func TestPushStatuses(t *testing.T) {
	if got := fmt.Sprint(PushStatuses()); got != "[failed not-attempted pushed skipped-no-key]" {
		t.Errorf("PushStatuses() = %s", got)
	}
}
