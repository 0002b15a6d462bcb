package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/testkit/testutil"
)

func TestFileName(t *testing.T) {
	tests := map[string]string{
		"weekly-bookings": "weekly-bookings.jsonl",
		"v1.2_smoke":      "v1.2_smoke.jsonl",
		"../../etc/x":     ".._.._etc_x.jsonl",
		"a b/c":           "a_b_c.jsonl",
		"":                "_.jsonl",
		".":               "_..jsonl",
		"..":              "_...jsonl",
		"Zoë":             "Zo__.jsonl",
	}
	for in, want := range tests {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTimestamp(t *testing.T) {
	at := time.Date(2026, 7, 18, 16, 0, 1, 234_567_000, time.FixedZone("CEST", 2*3600))
	if got := Timestamp(at); got != "2026-07-18T14:00:01.234Z" {
		t.Errorf("Timestamp = %s", got)
	}
	if got := Millis(1999 * time.Microsecond); got != 1 {
		t.Errorf("Millis(1.999ms) = %d", got)
	}
}

func record(skill string, failures int) *Record {
	r := &Record{Skill: skill, StartedAt: "2026-07-18T14:00:00.000Z", FinishedAt: "2026-07-18T14:00:00.000Z"}
	r.Steps = []StepRecord{{N: 1, Title: "one", Outcome: Passed, Failures: []string{}}}
	if failures > 0 {
		msgs := make([]string, failures)
		for i := range msgs {
			msgs[i] = strings.Repeat(fmt.Sprint(i%10), 512) // make lines long
		}
		r.Steps = append(r.Steps, StepRecord{N: 2, Title: "two", Outcome: Failed, Failures: msgs, Why: &Why{Trigger: msgs[0]}})
	}
	r.Finish(false)
	return r
}

// TestAppendConcurrent: many writers appending to one history never
// interleave inside a line.
func TestAppendConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "nested")
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := Append(dir, record("busy", (w+i)%40)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	f, err := os.Open(Path(dir, "busy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not a record: %v", lines, err)
		}
	}
	if lines != writers*each {
		t.Errorf("%d lines, want %d", lines, writers*each)
	}
}

func TestAppendErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := Append(filepath.Join(blocker, "runs"), record("x", 0))
	if err == nil {
		t.Fatal("appending under a regular file succeeded")
	}
	if path != filepath.Join(blocker, "runs", "x.jsonl") {
		t.Errorf("path %s", path)
	}
}

// TestMarshalShape pins the record's field names and the omission of the
// escalation fields when escalation never ran.
func TestMarshalShape(t *testing.T) {
	r := record("shape", 1)
	line, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(line)
	for _, want := range []string{`{"skill":"shape","startedAt":`, `"finishedAt":`, `"passed":false,"steps":[{"n":1,"title":"one","level":0,"outcome":"passed","ms":0,"failures":[]}`, `"why":{"trigger":`, `"totals":{"steps":2,"passed":1,"unchecked":0,"skipped":0,"failed":1,"ms":0,"llmInputTokens":0,"llmOutputTokens":0},"verdict":"failed"}` + "\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("record %s\nlacks %s", s, want)
		}
	}
	for _, absent := range []string{"llm\"", "escalationAttempted", "change"} {
		if strings.Contains(s, absent) {
			t.Errorf("record carries %s without escalation", absent)
		}
	}
}

// TestReadMixedHistory reads a history with pre-0.2.0 records, current
// ones, one whose totals lie, blank and corrupt lines.
func TestReadMixedHistory(t *testing.T) {
	f, err := os.Open("testdata/mixed-history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range h.Entries {
		fmt.Fprintf(&b, "line %d: legacy=%v inconsistent=%v totals=%+v\n", e.Line, e.Legacy, e.Inconsistent, e.Record.Totals)
	}
	for _, c := range h.Corrupt {
		fmt.Fprintf(&b, "corrupt %v\n", c)
	}
	sum, err := json.MarshalIndent(Summarize("weekly", h), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(sum)
	b.WriteByte('\n')
	testutil.Golden(t).Assert(t, "history", []byte(b.String()))
}

func TestSummarizeEmpty(t *testing.T) {
	s := Summarize("none", &History{})
	if s.Runs != 0 || s.PassRate != 0 || s.Latency != (Latency{}) {
		t.Errorf("empty summary %+v", s)
	}
}

func TestPercentile(t *testing.T) {
	v := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if p50, p95 := percentile(v, 50), percentile(v, 95); p50 != 5 || p95 != 10 {
		t.Errorf("p50 %d p95 %d", p50, p95)
	}
	if p := percentile([]int64{7}, 95); p != 7 {
		t.Errorf("single p95 %d", p)
	}
}

func TestOutcomeValid(t *testing.T) {
	for _, o := range []Outcome{Passed, Unchecked, Failed, Skipped} {
		if !o.Valid() {
			t.Errorf("%s invalid", o)
		}
	}
	if Outcome("won").Valid() {
		t.Error("won is valid")
	}
}

// TestReadKeepsNewFields: a record read back keeps every field added after
// the first format, and ForFile separates two files sharing a name.
func TestReadKeepsNewFields(t *testing.T) {
	a := record("shared", 1)
	a.Path, a.SkillSHA256 = "a/shared.skill.md", strings.Repeat("a", 64)
	a.Provenance = &Provenance{Provider: "github-actions", Repository: "acme/shop", Commit: strings.Repeat("e", 40), Ref: "refs/heads/main", RunURL: "https://github.com/acme/shop/actions/runs/1"}
	a.Steps[1].Kind = KindCheck
	a.Steps[0].Action = &ActionRecord{Tool: "t", Args: []byte(`{"q":1}`)}
	a.Steps[0].Binds = map[string]json.RawMessage{"id": []byte(`"x"`)}
	a.Steps[0].Observation = &Digest{SHA256: strings.Repeat("b", 64), Size: 3, Status: 200}
	a.Steps[0].Attempts, a.Steps[0].Tries = 2, []Digest{{SHA256: "c", Size: 1}, {SHA256: "d", Size: 2}}
	b := record("shared", 1)
	b.Path = "b/shared.skill.md"
	old := record("shared", 1)
	var buf bytes.Buffer
	for _, r := range []*Record{a, b, old} {
		line, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
	}
	h, err := Read(&buf)
	if err != nil || len(h.Entries) != 3 {
		t.Fatalf("read: %v, %d entries", err, len(h.Entries))
	}
	want, _ := Marshal(a)
	got, _ := Marshal(&h.Entries[0].Record)
	if string(got) != string(want) {
		t.Fatalf("read back\n%s\nwant\n%s", got, want)
	}
	kept, unattributed := h.ForFile("a/shared.skill.md")
	if len(kept.Entries) != 2 || unattributed != 1 || kept.Entries[0].Record.Path != "a/shared.skill.md" {
		t.Fatalf("ForFile kept %d (%d unattributed)", len(kept.Entries), unattributed)
	}
}

// TestFinishConfig: a run whose failed steps all failed for its set-up
// (gate, input) is config; one failed step of any other kind makes it
// failed; tool drift that stopped it is failed, interrupted wins; and a
// record reads back with the servers it ran against.
func TestFinishConfig(t *testing.T) {
	step := func(o Outcome, k Kind) StepRecord { return StepRecord{N: 1, Title: "s", Outcome: o, Kind: k} }
	for _, tc := range []struct {
		name        string
		steps       []StepRecord
		drift       *ToolDrift
		interrupted bool
		want        Verdict
	}{
		{"gate", []StepRecord{step(Passed, ""), step(Failed, KindGate), step(Skipped, "")}, nil, false, VerdictConfig},
		{"input", []StepRecord{step(Failed, KindInput)}, nil, false, VerdictConfig},
		{"a check too", []StepRecord{step(Failed, KindGate), step(Failed, KindCheck)}, nil, false, VerdictFailed},
		{"tool", []StepRecord{step(Failed, KindTool)}, nil, false, VerdictFailed},
		{"no kind", []StepRecord{step(Failed, "")}, nil, false, VerdictFailed},
		{"nothing failed", []StepRecord{step(Passed, "")}, nil, false, VerdictPassed},
		{"tool drift", []StepRecord{step(Skipped, "")}, &ToolDrift{Tools: []DriftedTool{{Tool: "t"}}}, false, VerdictFailed},
		{"interrupted", []StepRecord{step(Failed, KindGate)}, nil, true, VerdictInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Record{Skill: "s", Steps: tc.steps, ToolDrift: tc.drift}
			r.Finish(tc.interrupted)
			if r.Verdict != tc.want || r.Passed != (tc.want == VerdictPassed) {
				t.Errorf("verdict %s passed %v, want %s", r.Verdict, r.Passed, tc.want)
			}
		})
	}
	r := Record{Skill: "s", StartedAt: "a", FinishedAt: "b", Steps: []StepRecord{step(Passed, "")},
		Servers: []ServerUse{{Name: "memory", Command: "npx"}, {Name: "reelier", Command: "reelier", Mock: true}}}
	r.Finish(false)
	line, _ := Marshal(&r)
	h, err := Read(bytes.NewReader(line))
	if err != nil || len(h.Entries) != 1 || !reflect.DeepEqual(h.Entries[0].Record.Servers, r.Servers) || !h.Entries[0].Record.Mock() {
		t.Errorf("read back %+v, %v; want the servers, a mock run", h.Entries, err)
	}
}

// TestReadInterruptedAndInjected: a record with a step interrupted in
// flight reads back consistent (its totals count it), and a record of a
// run with an injected failure keeps it.
func TestReadInterruptedAndInjected(t *testing.T) {
	rec := Record{Skill: "s", StartedAt: "a", FinishedAt: "b", Steps: []StepRecord{
		{N: 1, Title: "one", Outcome: Passed, Failures: []string{}},
		{N: 2, Title: "two", Outcome: Interrupted, Failures: []string{}, Action: &ActionRecord{Tool: "t", Args: []byte(`{"id":1}`)}},
		{N: 3, Title: "three", Outcome: Skipped, Failures: []string{}, Skip: "interrupted"},
	}, Injected: &Injection{Step: 1, Kind: InjectTimeout}}
	rec.Finish(true)
	line, err := Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Read(bytes.NewReader(line))
	if err != nil || len(h.Entries) != 1 {
		t.Fatalf("%v %+v", err, h)
	}
	e := h.Entries[0]
	if e.Inconsistent || e.Legacy || e.Record.Totals.Interrupted != 1 || e.Record.Totals.Skipped != 1 || e.Record.Verdict != VerdictInterrupted {
		t.Errorf("read back %+v (inconsistent %v)", e.Record.Totals, e.Inconsistent)
	}
	if e.Record.Injected == nil || *e.Record.Injected != (Injection{Step: 1, Kind: InjectTimeout}) {
		t.Errorf("injected %+v", e.Record.Injected)
	}
	if e.Record.Steps[1].Outcome != Interrupted || e.Record.Steps[1].Action == nil {
		t.Errorf("step 2 %+v", e.Record.Steps[1])
	}
}
