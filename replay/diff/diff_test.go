package diff

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// itemsSkill makes an item (its id only type-checked, and bound), reads
// it back by that id on a computed date, and echoes.
const itemsSkill = `---
name: items
description: make an item, read it back, echo
---

## Steps

### Step 1 — Create an item
- intent: make an item to read back
- action: create_item {"title": "demo"}
- assert: json.id is string
- assert: json.title == "demo"
- bind: item_id = json.id
- effect: idempotent-write

### Step 2 — Read it back
- intent: read the item just made
- action: get_item {"id": "{{item_id}}", "on": "{{today}}", "by": "{{who}}"}
- assert: json.status == "open"
- assert: json.status is string
- assert: json.updated is set
- assert: json.title is string
- assert: json.title matches /^d/
- effect: read

### Step 3 — Echo
- intent: say hi
- action: echo {"text": "hi"}
- effect: read
`

func parseSkill(t *testing.T, src string) *Profile {
	t.Helper()
	s, diags := grammar.Parse("items.skill.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return NewProfile(s)
}

func TestNewProfile(t *testing.T) {
	p := parseSkill(t, itemsSkill)
	type view struct {
		N                             int
		Tool                          string
		TypeOnly, Args, BindsTypeOnly []string
	}
	var got []view
	for _, sp := range p.Steps {
		got = append(got, view{sp.N, sp.Tool, keysOf(sp.TypeOnly), keysOf(sp.ArgsTypeOnly), keysOf(sp.BindsTypeOnly)})
	}
	want := []view{
		{N: 1, Tool: "create_item", TypeOnly: []string{"id"}, BindsTypeOnly: []string{"item_id"}},
		// status has a value assert beside its type assert: compared by
		// value; title's `matches` is a shape, not a value.
		{N: 2, Tool: "get_item", TypeOnly: []string{"title", "updated"}, Args: []string{"id", "on"}},
		{N: 3, Tool: "echo"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("profile (-want +got):\n%s", d)
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return out
}

// traceOf builds a trace from (tool, args, result text) triples.
func traceOf(t *testing.T, observed string, calls ...[3]string) *trace.Trace {
	t.Helper()
	var b strings.Builder
	meta := map[string]any{"t": "meta", "seq": 0, "name": "items", "startedAt": "2026-07-18T14:02:00.000Z", "wrapped": []string{}, "observed": observed}
	line, _ := json.Marshal(meta)
	b.Write(line)
	b.WriteByte('\n')
	seq := 1
	for i, c := range calls {
		b.WriteString(`{"t":"note","seq":` + itoa(seq) + `,"ts":"2026-07-18T14:02:01.000Z","text":"note ` + itoa(i+1) + `"}` + "\n")
		seq++
		b.WriteString(`{"t":"call","seq":` + itoa(seq) + `,"i":` + itoa(i) + `,"ts":"2026-07-18T14:02:01.000Z","tool":"` + c[0] + `","args":` + c[1] + "}\n")
		seq++
		if c[2] != "" {
			b.WriteString(`{"t":"result","seq":` + itoa(seq) + `,"i":` + itoa(i) + `,"ok":true,"ms":1,"body":` + c[2] + "}\n")
			seq++
		}
	}
	tr, err := trace.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return tr
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// text is an MCP result with one text block.
func text(s string) string {
	b, _ := json.Marshal(s)
	return `{"content":[{"type":"text","text":` + string(b) + `}]}`
}

func TestTraces(t *testing.T) {
	recording := [][3]string{
		{"create_item", `{"title":"demo"}`, text(`{"id":"item-1","title":"demo"}`)},
		{"get_item", `{"id":"item-1","on":"2026-07-18","by":"ann"}`, text(`{"id":"item-1","title":"demo","status":"open","updated":"2026-07-18T14:02:01Z"}`)},
		{"echo", `{"text":"hi"}`, text("mcptest: hi\nline two")},
	}
	tests := []struct {
		name    string
		replay  [][3]string
		skill   bool
		drifted bool
	}{
		{name: "same", replay: recording},
		{name: "drifted", drifted: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, text(`{"id":"item-2","title":"demo"}`)},
			{"get_item", `{"id":"item-2","on":"2026-07-19","by":"bob"}`, text(`{"id":"item-2","title":"demo","status":"closed","updated":"2026-07-19T09:00:00Z","tags":[]}`)},
			{"echo", `{"text":"hi"}`, text("b: hi\nline two")},
		}},
		{name: "type-only with the skill", skill: true, drifted: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, text(`{"id":"item-2","title":"demo"}`)},
			{"get_item", `{"id":"item-2","on":"2026-07-19","by":"bob"}`, text(`{"id":"item-2","title":"demo","status":"open","updated":7}`)},
			{"echo", `{"text":"hi"}`, text("mcptest: hi\nline two")},
		}},
		{name: "same with the skill", skill: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, text(`{"id":"item-2","title":"demo"}`)},
			{"get_item", `{"id":"item-2","on":"2026-07-19","by":"ann"}`, text(`{"id":"item-2","title":"demo","status":"open","updated":"2026-07-19T09:00:00Z"}`)},
			{"echo", `{"text":"hi"}`, text("mcptest: hi\nline two")},
		}},
		{name: "a shape the skill matches", skill: true, drifted: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, text(`{"id":"item-1","title":"demo"}`)},
			{"get_item", `{"id":"item-1","on":"2026-07-18","by":"ann"}`, text(`{"id":"item-1","title":"x-demo","status":"open","updated":"2026-07-18T14:02:01Z"}`)},
			{"echo", `{"text":"hi"}`, text("mcptest: hi\nline two")},
		}},
		{name: "calls missing and added", drifted: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, text(`{"id":"item-1","title":"demo"}`)},
			{"list_items", `{}`, text(`[]`)},
			{"echo", `{"text":"hi"}`, text("mcptest: hi\nline two")},
		}},
		{name: "status and shape", drifted: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, `{"content":[{"type":"text","text":"no such tool"}],"isError":true}`},
			{"get_item", `{"id":"item-1","on":"2026-07-18","by":"ann"}`, `{"__truncated":true,"preview":"{\"id\":","originalLength":90000}`},
			{"echo", `{"text":"hi"}`, ``},
		}},
		{name: "structured content and http status", drifted: true, replay: [][3]string{
			{"create_item", `{"title":"demo"}`, `{"content":[{"type":"text","text":"made"}],"structuredContent":{"id":"item-1","title":"demo"}}`},
			{"get_item", `{"id":"item-1","on":"2026-07-18","by":"ann"}`, `{"content":[{"type":"text","text":"gone"}],"isError":true,"_meta":{"reelier/status":404}}`},
			{"echo", `{"text":"hi"}`, text("mcptest: hi\nline two\nline three")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prof *Profile
			if tt.skill {
				prof = parseSkill(t, itemsSkill)
			}
			r := Traces(traceOf(t, "proxy", recording...), traceOf(t, "replay", tt.replay...), "recording.jsonl", "replay.jsonl", prof)
			if r.Drifted() != tt.drifted {
				t.Errorf("Drifted() = %v, want %v", r.Drifted(), tt.drifted)
			}
			if tt.skill {
				r.Skill = "items.skill.md"
			}
			var out bytes.Buffer
			r.WriteText(&out)
			testutil.Golden(t).Assert(t, strings.ReplaceAll(tt.name, " ", "-"), out.Bytes())
		})
	}
}

// record is a run record of the items skill.
func record(started, outcome2 string, id, status string, sha string) runlog.Record {
	return runlog.Record{
		Skill: "items", StartedAt: started, FinishedAt: started, Path: "items.skill.md", SkillSHA256: sha,
		Steps: []runlog.StepRecord{
			{N: 1, Title: "Create an item", Outcome: runlog.Passed,
				Action:      &runlog.ActionRecord{Tool: "create_item", Args: json.RawMessage(`{"title":"demo"}`)},
				Binds:       map[string]json.RawMessage{"item_id": json.RawMessage(`"` + id + `"`)},
				Observation: &runlog.Digest{SHA256: strings.Repeat(id[len(id)-1:], 64), Size: 31, Status: 200}},
			{N: 2, Title: "Read it back", Outcome: runlog.Outcome(outcome2),
				Action:      &runlog.ActionRecord{Tool: "get_item", Args: json.RawMessage(`{"id":"` + id + `","on":"2026-07-18","by":"ann"}`)},
				Observation: &runlog.Digest{SHA256: strings.Repeat(status[:1], 64), Size: 60, Status: 200}},
			{N: 3, Title: "Echo", Outcome: runlog.Skipped},
		},
	}
}

func TestRuns(t *testing.T) {
	tests := []struct {
		name    string
		a, b    runlog.Record
		skill   bool
		drifted bool
	}{
		{name: "same", a: record("2026-07-18T14:00:00.000Z", "passed", "item-1", "open", "ab"), b: record("2026-07-18T15:00:00.000Z", "passed", "item-1", "open", "ab")},
		{name: "digest only", drifted: true,
			a: record("2026-07-18T14:00:00.000Z", "passed", "item-1", "open", "ab"), b: record("2026-07-18T15:00:00.000Z", "failed", "item-1", "closed", "cd")},
		{name: "binds and args", drifted: true,
			a: record("2026-07-18T14:00:00.000Z", "passed", "item-1", "open", ""), b: record("2026-07-18T15:00:00.000Z", "passed", "item-2", "open", "")},
		{name: "binds and args with the skill", skill: true, drifted: true,
			a: record("2026-07-18T14:00:00.000Z", "passed", "item-1", "open", ""), b: record("2026-07-18T15:00:00.000Z", "passed", "item-2", "open", "")},
		{name: "legacy records", a: runlog.Record{Skill: "items", StartedAt: "x", Steps: []runlog.StepRecord{{N: 1, Title: "Create an item", Outcome: runlog.Passed}}},
			b: runlog.Record{Skill: "items", StartedAt: "y", Steps: []runlog.StepRecord{{N: 1, Title: "Create an item", Outcome: runlog.Passed}, {N: 2, Title: "Read it back", Outcome: runlog.Failed}}}, drifted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prof *Profile
			if tt.skill {
				prof = parseSkill(t, itemsSkill)
			}
			r := Runs(Run{Record: &tt.a, Name: "run 1", Desc: "run 1"}, Run{Record: &tt.b, Name: "run 2", Desc: "run 2"}, prof)
			if r.Drifted() != tt.drifted {
				t.Errorf("Drifted() = %v, want %v", r.Drifted(), tt.drifted)
			}
			var out bytes.Buffer
			r.WriteText(&out)
			testutil.Golden(t).Assert(t, strings.ReplaceAll(tt.name, " ", "-"), out.Bytes())
		})
	}
}

// TestLoad covers picking inputs: a skill's last two runs, --run, two
// files of runs, and the bad inputs that are exit 2.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	line := func(r runlog.Record) string {
		b, err := runlog.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	runs := filepath.Join(dir, "runs")
	hist := write("runs/items.jsonl", line(record("2026-07-18T14:00:00.000Z", "passed", "item-1", "open", ""))+
		"not a record\n"+
		line(record("2026-07-18T15:00:00.000Z", "passed", "item-1", "open", ""))+
		line(record("2026-07-18T16:00:00.000Z", "failed", "item-1", "closed", "")))
	one := write("one.jsonl", line(record("2026-07-18T14:00:00.000Z", "passed", "item-1", "open", "")))
	write("items.skill.md", itemsSkill)
	write("other.skill.md", itemsSkill)
	t.Chdir(dir) // the records name items.skill.md as the run did
	tr := write("a.jsonl", `{"t":"meta","seq":0,"name":"items","startedAt":"2026-07-18T14:02:00.000Z","wrapped":[]}`+"\n")
	badTrace := write("bad.jsonl", `{"t":"meta","seq":0,"name":"items","startedAt":"2026-07-18T14:02:00.000Z","wrapped":[]}`+"\n"+`{"t":"call","seq":1}`+"\n")

	type want struct {
		a, b    string // the sides' descriptions
		drifted bool
		err     string
	}
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{"a skill name: the last two runs", Input{Args: []string{"items"}, RunsDir: runs},
			want{a: `run 2 of "items" (started 2026-07-18T15:00:00.000Z, passed)`, b: `run 3 of "items" (started 2026-07-18T16:00:00.000Z, failed)`, drifted: true}},
		{"a skill file", Input{Args: []string{"items.skill.md"}, RunsDir: runs},
			want{a: `run 2 of "items" (started 2026-07-18T15:00:00.000Z, passed)`, b: `run 3 of "items" (started 2026-07-18T16:00:00.000Z, failed)`, drifted: true}},
		{"another file of the same name", Input{Args: []string{"other.skill.md"}, RunsDir: runs},
			want{err: runs + `/items.jsonl holds 0 run records of "items" from other.skill.md (and 3 runs of another file with that name): diff needs two`}},
		{"--run picks", Input{Args: []string{hist}, Runs: []int{1, -2}},
			want{a: `run 1 of "items" (started 2026-07-18T14:00:00.000Z, passed)`, b: `run 2 of "items" (started 2026-07-18T15:00:00.000Z, passed)`}},
		{"two files of runs", Input{Args: []string{one, hist}},
			want{a: one + `: last run of "items" (started 2026-07-18T14:00:00.000Z, passed)`, b: hist + `: last run of "items" (started 2026-07-18T16:00:00.000Z, failed)`, drifted: true}},
		{"one run only", Input{Args: []string{one}}, want{err: one + ` holds 1 run record of "items": diff needs two (run the skill again, or compare two traces)`}},
		{"no history", Input{Args: []string{"nothing"}, RunsDir: runs}, want{err: `no run records of "nothing" in ` + runs + ` (reelier run writes one per run; --runs-dir names another folder)`}},
		{"missing file", Input{Args: []string{filepath.Join(dir, "missing.jsonl"), tr}}, want{err: "open " + filepath.Join(dir, "missing.jsonl") + ": no such file or directory"}},
		{"one trace", Input{Args: []string{tr}}, want{err: tr + " is a trace: give a second trace to compare it with"}},
		{"a trace and runs", Input{Args: []string{tr, one}}, want{err: tr + " is a trace and " + one + " is a file of run records: diff compares two traces or two runs"}},
		{"a bad trace line", Input{Args: []string{tr, badTrace}}, want{err: badTrace + `:2: field "i": missing`}},
		{"--run out of range", Input{Args: []string{hist}, Runs: []int{1, 4}}, want{err: "--run 4: " + hist + " holds runs 1 to 3 (or -1 to -3 from the newest)"}},
		{"--run once", Input{Args: []string{hist}, Runs: []int{1}}, want{err: "--run is given twice, once for each run to compare (got it 1 times)"}},
		{"--skill that does not parse", Input{Args: []string{tr, tr}, Skill: one}, want{err: one + " does not parse as a skill: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Load(tt.in)
			if tt.want.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.want.err) {
					t.Fatalf("err = %v, want %q", err, tt.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.A != tt.want.a || r.B != tt.want.b || r.Drifted() != tt.want.drifted {
				t.Errorf("got %q → %q drifted %v, want %q → %q drifted %v", r.A, r.B, r.Drifted(), tt.want.a, tt.want.b, tt.want.drifted)
			}
		})
	}
}

// TestWriteTextEscapes: names, titles and values from a trace cannot
// steer the terminal.
func TestWriteTextEscapes(t *testing.T) {
	r := &Report{A: "a\x1b]0;title\x07.jsonl", B: "b.jsonl", Steps: []*Step{{N: 1, Tool: "echo\r", Title: "Say \u202ehi", Verdict: Drifted,
		Changes: []Change{{Path: "json.x", From: `"\u001b[2J"`, To: "\"\u202e\"", Kind: Changed}}}}}
	var out bytes.Buffer
	r.WriteText(&out)
	if strings.ContainsAny(out.String(), "\x1b\r\x07\u202e") {
		t.Errorf("a control character reached the output:\n%q", out.String())
	}
	for _, want := range []string{`a\x1b]0;title\x07.jsonl`, `echo\r  Say \u202ehi`, `json.x: "\u001b[2J" → "\u202e"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}

// TestProfileSelectionBind: an argument filled from a selection the step
// holds only to a type is type-only; one from a selection held to a value
// is compared by value.
func TestProfileSelectionBind(t *testing.T) {
	p := parseSkill(t, `---
name: sel
description: pick the newest, use it
---

## Steps

### Step 1 — List
- intent: list
- action: list_items {}
- assert: max(json.items by at as date).id is string
- assert: only(json.items where name == "main").id == "m1"
- bind: newest = max(json.items by at as date).id
- bind: main = only(json.items where name == "main").id
- effect: read

### Step 2 — Read
- intent: read both
- action: get_item {"a": "{{newest}}", "b": "{{main}}"}
- effect: read
`)
	if got := keysOf(p.Step(2).ArgsTypeOnly); !slices.Equal(got, []string{"a"}) {
		t.Errorf("step 2 type-only arguments %v, want [a]", got)
	}
	if got := keysOf(p.Step(1).TypeOnly); got != nil {
		t.Errorf("step 1 type-only paths %v, want none (selections are not paths)", got)
	}
}
