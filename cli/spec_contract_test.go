package cli

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

// TestSpecReplayContract holds SPEC.md §14's tables to the code: the
// verdicts, the exit statuses and the run record's added fields.
func TestSpecReplayContract(t *testing.T) {
	tables := testutil.SpecTables(t)
	col := func(table string, i int) []string {
		var out []string
		for _, r := range tables[table] {
			out = append(out, strings.Trim(r[i], "`"))
		}
		if len(out) == 0 {
			t.Fatalf("SPEC.md has no %q contract table", table)
		}
		return out
	}
	verdicts := []string{string(runlog.VerdictPassed), string(runlog.VerdictFailed), string(runlog.VerdictConfig), string(runlog.VerdictUnchecked), string(runlog.VerdictInterrupted)}
	if got := col("Verdicts", 0); !reflect.DeepEqual(got, verdicts) {
		t.Errorf("SPEC.md verdicts %q, code %q", got, verdicts)
	}
	var codes []string
	for _, c := range []int{exitOK, exitFailed, exitUsage, exitTool, exitInterrupted} {
		codes = append(codes, strconv.Itoa(c))
	}
	if got := col("Exit statuses", 0); !reflect.DeepEqual(got, codes) {
		t.Errorf("SPEC.md exit statuses %q, code %q", got, codes)
	}
	// Every added field is in the table, and every field in the table is
	// one the record marshals when set.
	rec := runlog.Record{Verdict: "passed", Path: "p", SkillSHA256: "h", Provenance: &runlog.Provenance{Provider: "local"},
		ToolDrift:     &runlog.ToolDrift{Tools: []runlog.DriftedTool{{Tool: "t", Changes: []string{"c"}}}},
		Servers:       []runlog.ServerUse{{Name: "memory", Command: "npx"}},
		OpenQuestions: []runlog.OpenQuestion{{Line: 12, Step: 1}}, RunID: "r", Injected: &runlog.Injection{Step: 1, Kind: runlog.InjectError}, Steps: []runlog.StepRecord{{
			Kind: runlog.KindCheck, Action: &runlog.ActionRecord{Tool: "t", Args: []byte("{}")}, Binds: map[string]json.RawMessage{"x": []byte("1")},
			Observation: &runlog.Digest{SHA256: "s"}, Attempts: 2, Tries: []runlog.Digest{{}}, Skip: "interrupted",
			Approval: &runlog.ApprovalRecord{Status: replay.ApprovalStale, Digest: "sha256:…", Changed: []string{"args"}},
			Write:    &runlog.WriteRecord{IdempotencyKey: "k", Resource: "mcptest://items/1"},
			Policy:   &runlog.PolicyDecision{Digest: "sha256:0", Rule: "r", Action: "deny"},
			LLM:      &runlog.LLMUsage{InputTokens: 1, Models: []runlog.ModelUsage{{Model: "m", InputTokens: 1, CostMicroUSD: new(int64)}}},
		}}}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	json.Unmarshal(line, &top)
	var steps []map[string]json.RawMessage
	json.Unmarshal(top["steps"], &steps)
	first := map[string]bool{"skill": true, "startedAt": true, "finishedAt": true, "passed": true, "steps": true, "totals": true,
		"n": true, "title": true, "level": true, "outcome": true, "ms": true, "failures": true}
	var added []string
	for _, m := range []map[string]json.RawMessage{top, steps[0]} {
		for k := range m {
			if !first[k] {
				added = append(added, k)
			}
		}
	}
	spec := col("The run record", 0)
	for _, k := range added {
		if !strings.Contains(" "+strings.Join(spec, " ")+" ", " "+k+" ") {
			t.Errorf("the record field %q is not in SPEC.md §14's run record table", k)
		}
	}
	if len(spec) != len(added) {
		t.Errorf("SPEC.md lists %d added fields %q, the record has %d %q", len(spec), spec, len(added), added)
	}
	// The llm row names what the models' entries hold.
	{
		var st map[string]json.RawMessage
		json.Unmarshal(steps[0]["llm"], &st)
		var models []map[string]json.RawMessage
		json.Unmarshal(st["models"], &models)
		row := ""
		for _, r := range tables["The run record"] {
			if r[0] == "`llm`" {
				row = r[2]
			}
		}
		names := []string{"models"}
		for k := range models[0] {
			names = append(names, k)
		}
		for _, k := range names {
			if !strings.Contains(row, `"`+k+`"`) {
				t.Errorf("SPEC.md's llm row does not name %q", k)
			}
		}
	}
	// The kind row names every failure kind, the approval row every
	// approval status, and the write row the _meta key the key is sent
	// under.
	meaning := map[string]string{}
	for _, r := range tables["The run record"] {
		meaning[strings.Trim(r[0], "`")] = r[2]
	}
	for _, k := range []runlog.Kind{runlog.KindCheck, runlog.KindTool, runlog.KindGate, runlog.KindInput, runlog.KindApproval, runlog.KindPolicy} {
		if !strings.Contains(meaning["kind"], "`"+string(k)+"`") {
			t.Errorf("SPEC.md's kind row does not name the kind %q", k)
		}
	}
	for _, st := range []string{replay.ApprovalApproved, replay.ApprovalStale, replay.ApprovalMissing} {
		if !strings.Contains(meaning["approval"], `"`+st+`"`) {
			t.Errorf("SPEC.md's approval row does not name the status %q", st)
		}
	}
	if !strings.Contains(meaning["write"], "`"+tool.IdempotencyMetaKey+"`") {
		t.Errorf("SPEC.md's write row does not name the _meta key %q", tool.IdempotencyMetaKey)
	}
	if !strings.Contains(meaning["skip"], "`policy dry-run`") {
		t.Errorf("SPEC.md's run record row skip does not list `policy dry-run`")
	}
	for _, k := range runlog.InjectKinds {
		if !strings.Contains(meaning["injected"], "`"+k+"`") {
			t.Errorf("SPEC.md's run record row injected does not name the kind %q", k)
		}
	}
	var kinds []string
	for _, r := range tables["Injected failures"] {
		kinds = append(kinds, strings.Fields(strings.Trim(r[0], "`"))[0])
	}
	for i := range kinds {
		kinds[i] = strings.Trim(kinds[i], "`")
	}
	if !reflect.DeepEqual(kinds, runlog.InjectKinds) {
		t.Errorf("SPEC.md's Injected failures table lists %q, the code %q", kinds, runlog.InjectKinds)
	}
	for _, k := range []string{`"digest"`, `"rule"`, `"action"`} {
		if !strings.Contains(meaning["policy"], k) {
			t.Errorf("SPEC.md's run record row policy does not name %s", k)
		}
	}
}
