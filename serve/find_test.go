package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in    string
		camel bool
		want  string
	}{
		{"List this week's bookings", false, "list week book"},
		{"list_bookings", true, "list book"},
		{"listBookings getBooking", true, "listbook list book getbook get book"},
		{"listBookings", false, "listbook"},
		{"http.get", true, "http get"},
		{"Open a GitHub issue for the flaky tests", false, "open github issue flaky test"},
		{"cancel cancelled canceled cancelling", false, "cancel cancel cancel cancel"},
		{"call called calling shop shopping", false, "cal cal cal shop shop"},
		{"invoices companies boxes classes status", false, "invoice company box class status"},
		{"a I x do it", false, ""},
		{"Überprüfe die Buchungen", false, "überprüfe die buchungen"},
		{"v2 2026", false, "v2 2026"},
	}
	for _, tt := range tests {
		if got := strings.Join(words(tt.in, tt.camel), " "); got != tt.want {
			t.Errorf("words(%q, %t) = %q, want %q", tt.in, tt.camel, got, tt.want)
		}
	}
}

// TestRankDeterministic: ties go to the path that sorts first, whatever
// order the skills were read in, and a word every skill has counts for
// less than a rare one.
func TestRankDeterministic(t *testing.T) {
	mk := func(path string, ws ...string) *doc {
		d := &doc{path: path, words: map[string][]place{}}
		for _, w := range ws {
			d.add(w, place{fieldName, "name"})
		}
		return d
	}
	a, b, c := mk("b.skill.md", "booking"), mk("a.skill.md", "booking"), mk("c.skill.md", "booking invoice")
	for _, docs := range [][]*doc{{a, b, c}, {c, b, a}, {b, c, a}} {
		var got []string
		for _, m := range rank(newQuery("booking invoice"), docs) {
			got = append(got, m.doc.path)
		}
		if want := []string{"c.skill.md", "a.skill.md", "b.skill.md"}; !slices.Equal(got, want) {
			t.Errorf("rank = %v, want %v", got, want)
		}
	}
}

// TestFindSkill: real skill files ranked against task descriptions; the
// whole answer (scores, explanations, messages) is a golden file.
func TestFindSkill(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "skills"))); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, Options{Dir: dir})
	tests := []struct{ name, args string }{
		{"bookings", `{"task": "list this week's bookings for the hotel"}`},
		{"issue", `{"task": "open a GitHub issue about a flaky test"}`},
		{"homepage", `{"task": "check the shop homepage is up after the deploy"}`},
		{"invoices", `{"task": "how much did we invoice last month", "limit": 1}`},
		{"cancel", `{"task": "Cancel booking bk_42", "dir": "hotel"}`},
		{"nothing", `{"task": "forecast tomorrow's weather in Oslo"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out FindSkillOutput
			decode(t, call(t, cs, "reelier_find_skill", tt.args), &out)
			got, _ := json.MarshalIndent(out, "", "  ")
			testutil.Golden(t).Assert(t, tt.name, append(got, '\n'))
		})
	}
}

// TestFindSkillLastRun: a found skill carries its latest run's verdict.
func TestFindSkillLastRun(t *testing.T) {
	api, _ := fakeAPI(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"bookings.skill.md": bookingsSkill})
	cs := connect(t, Options{Dir: dir})
	var out FindSkillOutput
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "list bookings"}`), &out)
	if len(out.Skills) != 1 || out.Skills[0].LastRun != nil {
		t.Fatalf("before any run: %+v", out)
	}
	call(t, cs, "reelier_replay", `{"skillPath": "bookings.skill.md", "vars": {"base": "`+api+`"}}`)
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "list bookings"}`), &out)
	lr := out.Skills[0].LastRun
	if lr == nil || !lr.Passed || lr.PassedSteps != 1 || lr.UncheckedSteps != 1 {
		t.Errorf("after a run: %+v", lr)
	}
}

// TestFindSkillAgentSkillsFolder: a SKILL.md with Reelier steps is a skill
// to find and lint; an ordinary Agent Skill beside it is passed over.
func TestFindSkillAgentSkillsFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/skills/weekly-bookings/SKILL.md", "---\nname: weekly-bookings\ndescription: List this week's bookings for the hotel\n---\n\n### Step 1 — List bookings\n- intent: List this week's bookings\n- action: http.get {\"url\": \"https://api.example.test/bookings\"}\n- assert: status == 200\n- effect: read\n")
	write(".claude/skills/docx/SKILL.md", "---\nname: docx\ndescription: Bookings in Word documents\n---\n\n# Word documents\n\n### Step 1: Unpack\n")
	cs := connect(t, Options{Dir: dir})
	var out FindSkillOutput
	decode(t, call(t, cs, "reelier_find_skill", `{"task": "list this week's bookings"}`), &out)
	if out.Searched != 1 || len(out.Skills) != 1 || out.Skills[0].Name != "weekly-bookings" || len(out.Unparseable) != 0 {
		t.Errorf("find: %+v", out)
	}
	var lint LintOutput
	decode(t, call(t, cs, "reelier_lint", `{"path": ".claude/skills"}`), &lint)
	if lint.Files != 1 || lint.Errors != 0 {
		t.Errorf("lint: %+v", lint)
	}
}
