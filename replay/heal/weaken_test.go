package heal_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/heal"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/llm"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/llmtest"
	"github.com/reelier/reelier/tool"
)

// versionBody is what the service answers in the heal-refusal table: the
// version moved on to 2.1 and is also found under meta.
const versionBody = `{"version":"2.1","name":"reelier","status":"ok","id":7,"items":[{"id":1},{"id":2}],"meta":{"version":"2.1","deleted":null}}`

// weakSkill is a one-step skill with the given asserts.
func weakSkill(asserts ...string) string {
	var b strings.Builder
	b.WriteString("---\nname: version\ndescription: check the service version\n---\n\n## Steps\n\n### Step 1 — Read the version\n")
	b.WriteString("- intent: read the version\n- action: http.get {\"url\": \"{{base}}/version\"}\n")
	for _, a := range asserts {
		b.WriteString("- assert: " + a + "\n")
	}
	b.WriteString("- effect: read\n")
	return b.String()
}

// patchReply is the model's reply replacing the step's asserts.
func patchReply(asserts ...string) llmtest.Reply {
	text, _ := json.Marshal(map[string]any{"reason": "the service changed", "asserts": asserts})
	return reply(string(text), 500, 40)
}

// escalated is one run of a skill against versionBody with a Level 1
// ladder.
type escalated struct {
	path, src, after string
	locked           bool // the write-back lock file exists: writeback ran
	step             runlog.StepRecord
	res              *replay.Result
}

func escalate(t *testing.T, src string, replies []llmtest.Reply, tune func(*heal.Ladder)) escalated {
	t.Helper()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, versionBody)
	}))
	t.Cleanup(svc.Close)
	provider := llmtest.New(replies, llmtest.Options{})
	t.Cleanup(provider.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "version.skill.md")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	skill, diags := grammar.Parse(path, []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	ladder := &heal.Ladder{MaxLevel: 1, Model: "model-l1", SkillPath: path, NewClient: func() (llm.Client, error) {
		return llm.NewOpenAI(llm.Config{BaseURL: provider.URL, APIKey: key})
	}}
	if tune != nil {
		tune(ladder)
	}
	opts := replay.Options{Tools: tool.Registry{}, Vars: map[string]string{"base": svc.URL}, Healer: ladder,
		Clock: func() time.Time { return time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC) }}
	httptool.Register(opts.Tools, nil)
	res := replay.Run(context.Background(), skill, opts)
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, lockErr := os.Stat(filepath.Join(dir, ".version.skill.md.lock"))
	return escalated{path: path, src: src, after: string(after), locked: lockErr == nil, step: res.Record.Steps[0], res: res}
}

// TestHealRefusal is the heal-refusal table: every patch that gives up a
// value check is refused, naming what it drops, and never reaches the
// skill file; a changed value, a moved check and a stronger check are
// heals; --allow-weaker-heal accepts the weaker ones.
func TestHealRefusal(t *testing.T) {
	const suffix = "; pass --allow-weaker-heal to accept weaker checks"
	five := []string{`json.version == "2.0"`, `json.name == "reelier"`, `json.items length >= 3`, `body contains "reelier"`, `json.status != "down"`}
	cases := []struct {
		name        string
		asserts     []string // the step's
		patch       []string // the patch's
		allowWeaker bool
		// refused is the refusal after "Level 1 heal failed: patch refused: ",
		// without the suffix; "" means the heal is accepted.
		refused string
		// before and after are the lines the record's why shows.
		before, after []string
	}{
		{name: "== becomes is string", asserts: []string{`json.version == "2.0"`}, patch: []string{`json.version is string`},
			refused: `it would drop the check json.version == "2.0" (a value check becomes a type check)`},
		{name: "== becomes is set", asserts: []string{`json.version == "2.0"`}, patch: []string{`json.version is set`},
			refused: `it would drop the check json.version == "2.0" (a value check becomes a presence check)`},
		{name: "contains removed", asserts: []string{`json.version == "2.0"`, `body contains "reelier"`}, patch: []string{`json.version == "2.1"`},
			refused: `it would drop the check body contains "reelier"`},
		{name: "length >= removed", asserts: []string{`json.items length >= 3`, `json.name == "reelier"`}, patch: []string{`json.name == "reelier"`},
			refused: `it would drop the check json.items length >= 3`},
		{name: "matches becomes status == 200", asserts: []string{`json.version matches /^2\.0/`}, patch: []string{`status == 200`},
			refused: `it would drop the check json.version matches /^2\.0/ (only the status is checked)`},
		{name: "five asserts become one status assert", asserts: five, patch: []string{`status == 200`},
			refused: `it would drop 5 checks and check only the status: json.version == "2.0", json.name == "reelier", json.items length >= 3, body contains "reelier", json.status != "down"`},
		{name: "!= removed", asserts: []string{`json.version == "2.0"`, `json.status != "down"`}, patch: []string{`json.version == "2.1"`},
			refused: `it would drop the check json.status != "down"`},
		{name: "status removed", asserts: []string{`status == 200`, `json.version == "2.0"`}, patch: []string{`json.version == "2.1"`},
			refused: `it would drop the check status == 200`},
		{name: "two checks of a path become one", asserts: []string{`json.id >= 1`, `json.id <= 5`}, patch: []string{`json.id >= 1`},
			refused: `it would drop the check json.id <= 5`},
		{name: "a moved check changes its form", asserts: []string{`json.version == "2.0"`}, patch: []string{`json.meta.version matches /^2/`},
			refused: `it would drop the check json.version == "2.0"`},
		{name: "a moved check becomes a type check", asserts: []string{`json.version == "2.0"`}, patch: []string{`json.meta.version is string`},
			refused: `it would drop the check json.version == "2.0" (a value check becomes a type check of json.meta.version)`},
		{name: "several losses each say what is left", asserts: []string{`json.version == "2.0"`, `json.items length >= 3`}, patch: []string{`json.version is string`, `json.items is array`},
			refused: `it would drop 2 checks: json.version == "2.0" (a value check becomes a type check), json.items length >= 3 (a value check becomes a type check)`},

		{name: "is number becomes == value", asserts: []string{`json.version is number`}, patch: []string{`json.version == "2.1"`},
			before: []string{`- assert: json.version is number`}, after: []string{`- assert: json.version == "2.1"`}},
		{name: "an assert added", asserts: []string{`status == 200`, `json.version == "2.0"`}, patch: []string{`status == 200`, `json.version == "2.1"`, `json.items length >= 2`},
			before: []string{`- assert: json.version == "2.0"`}, after: []string{`- assert: json.version == "2.1"`, `- assert: json.items length >= 2`}},
		{name: "== 2.0 becomes == 2.1", asserts: []string{`json.version == "2.0"`}, patch: []string{`json.version == "2.1"`},
			before: []string{`- assert: json.version == "2.0"`}, after: []string{`- assert: json.version == "2.1"`}},
		{name: "a check moves with its field", asserts: []string{`status == 200`, `json.version == "2.0"`}, patch: []string{`status == 200`, `json.meta.version == "2.1"`},
			before: []string{`- assert: json.version == "2.0"`}, after: []string{`- assert: json.meta.version == "2.1"`}},
		{name: "another value check of the same path", asserts: []string{`json.version == "2.0"`}, patch: []string{`json.version matches /^2\./`},
			before: []string{`- assert: json.version == "2.0"`}, after: []string{`- assert: json.version matches /^2\./`}},
		{name: "== null moves as is null", asserts: []string{`json.deleted == null`}, patch: []string{`json.meta.deleted is null`},
			before: []string{`- assert: json.deleted == null`}, after: []string{`- assert: json.meta.deleted is null`}},
		{name: "a selection value check becomes its type check", asserts: []string{`max(json.items by id).id == 3`}, patch: []string{`max(json.items by id).id is number`},
			refused: "it would drop the check max(json.items by id).id == 3 (a value check becomes a type check)"},
		{name: "a selection check does not stand in for a path", asserts: []string{`json.version == "2.0"`}, patch: []string{`only(json.items where id == 1).id == 1`},
			refused: `it would drop the check json.version == "2.0"`},
		{name: "a path check does not stand in for a selection", asserts: []string{`count(json.items) == 3`}, patch: []string{`json.items length >= 2`},
			refused: "it would drop the check count(json.items) == 3"},
		{name: "a selection's value changes", asserts: []string{`max(json.items by id).id == 3`}, patch: []string{`max(json.items by id).id == 2`},
			before: []string{`- assert: max(json.items by id).id == 3`}, after: []string{`- assert: max(json.items by id).id == 2`}},
		{name: "a selection check changes its form", asserts: []string{`count(json.items) == 3`}, patch: []string{`count(json.items) >= 2`},
			before: []string{`- assert: count(json.items) == 3`}, after: []string{`- assert: count(json.items) >= 2`}},
		{name: "a shape check may go", asserts: []string{`json.version == "2.0"`, `json.missing is set`}, patch: []string{`json.version == "2.1"`},
			before: []string{`- assert: json.version == "2.0"`, `- assert: json.missing is set`}, after: []string{`- assert: json.version == "2.1"`}},

		{name: "== becomes is string with --allow-weaker-heal", allowWeaker: true, asserts: []string{`json.version == "2.0"`}, patch: []string{`json.version is string`},
			before: []string{`- assert: json.version == "2.0"`}, after: []string{`- assert: json.version is string`}},
		{name: "five asserts become status with --allow-weaker-heal", allowWeaker: true, asserts: five, patch: []string{`status == 200`},
			before: []string{`- assert: json.version == "2.0"`, `- assert: json.name == "reelier"`, `- assert: json.items length >= 3`, `- assert: body contains "reelier"`, `- assert: json.status != "down"`},
			after:  []string{`- assert: status == 200`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := escalate(t, weakSkill(c.asserts...), []llmtest.Reply{patchReply(c.patch...)}, func(l *heal.Ladder) { l.AllowWeaker = c.allowWeaker })
			st := got.step
			if c.refused != "" {
				want := "Level 1 heal failed: patch refused: " + c.refused + suffix
				if st.Outcome != runlog.Failed || len(st.Failures) == 0 || st.Failures[len(st.Failures)-1] != want {
					t.Fatalf("outcome %s, failures:\n%s\nwant the last one to be\n%s", st.Outcome, strings.Join(st.Failures, "\n"), want)
				}
				if st.Why == nil || st.Why.Trigger != st.Failures[0] || strings.Contains(st.Why.Trigger, "refused") || st.Why.Before != nil {
					t.Errorf("why %+v, want the step's own first failure as the trigger", st.Why)
				}
				if got.after != got.src || got.locked {
					t.Errorf("a refused heal reached the skill file (lock taken: %v):\n%s", got.locked, got.after)
				}
				return
			}
			if st.Outcome != runlog.Passed || st.Level != 1 {
				t.Fatalf("outcome %s at level %d, want passed at L1; failures:\n%s", st.Outcome, st.Level, strings.Join(st.Failures, "\n"))
			}
			if !slices.Equal(st.Why.Before, c.before) || !slices.Equal(st.Why.After, c.after) {
				t.Errorf("why before %q after %q, want %q and %q", st.Why.Before, st.Why.After, c.before, c.after)
			}
			for _, line := range c.after {
				if !strings.Contains(got.after, "\n"+line+"\n") {
					t.Errorf("the skill file lacks %q:\n%s", line, got.after)
				}
			}
		})
	}
}

// TestLadderPropose: a proposing ladder leaves the skill file (and its
// lock) alone; each heal's Proposal is the diff of the file with every
// heal so far, exactly what write-back would have written.
func TestLadderPropose(t *testing.T) {
	src := weakSkill(`json.version == "2.0"`) + `
### Step 2 — Read the name
- intent: read the name
- action: http.get {"url": "{{base}}/version"}
- assert: json.name == "reelier-old"
- effect: read
`
	replies := []llmtest.Reply{
		{Match: "### Step 1", Text: `{"reason": "version 2.1 is out", "asserts": ["json.version == \"2.1\""]}`},
		{Match: "### Step 2", Text: `{"reason": "the name lost its suffix", "asserts": ["json.name == \"reelier\""]}`},
	}
	// Write-back of the same two heals gives the file the proposal shows.
	written := escalate(t, src, replies, nil)
	got := escalate(t, src, replies, func(l *heal.Ladder) { l.Propose = true })
	if got.after != src || got.locked {
		t.Fatalf("a proposing ladder touched the skill file (lock taken: %v):\n%s", got.locked, got.after)
	}
	if written.after == src {
		t.Fatal("write-back wrote nothing")
	}
	var proposals []string
	for _, sr := range got.res.Steps {
		if h := sr.Heal; h == nil || h.Level != 1 || h.NotSaved != nil || h.Proposal == "" {
			t.Fatalf("step %d: heal %+v, want a proposed Level 1 heal", sr.Record.N, h)
		}
		proposals = append(proposals, sr.Heal.Proposal)
	}
	first := proposals[0]
	if !strings.Contains(first, "-- assert: json.version == \"2.0\"\n+- assert: json.version == \"2.1\"\n") ||
		!strings.Contains(first, "+- 2026-07-18 — L1 heal, step 1 (Read the version): version 2.1 is out\n") ||
		strings.Contains(first, "step 2") {
		t.Errorf("step 1's proposal, want step 1's heal only:\n%s", first)
	}
	if want := heal.UnifiedDiff(got.path, []byte(src), []byte(written.after)); proposals[1] != want {
		t.Errorf("step 2's proposal:\n%s\nwant the diff to what write-back wrote:\n%s", proposals[1], want)
	}
}
