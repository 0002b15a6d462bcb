package heal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
)

// TestSample: at most 40 leaves, depth first, three elements per array with
// the array's length noted, unaddressable keys left out, long values cut.
func TestSample(t *testing.T) {
	var items []string
	for i := range 20 {
		items = append(items, fmt.Sprintf(`{"id":"it_%d","n":%d}`, i, i))
	}
	body := `{"a":{"b":[1,2,3,4,5],"c":{},"d":[],"first-name":"x","e":null},"long":"` + strings.Repeat("é", 60) +
		`","items":[` + strings.Join(items, ",") + `],"tail":true}`
	obs := &tool.Observation{Status: 200, Body: body}
	root, err := obs.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got := sample(root)
	want := []string{
		"json.a.b is an array of 5 elements; the first 3:",
		"json.a.b.0 = 1", "json.a.b.1 = 2", "json.a.b.2 = 3",
		"json.a.c = {}", "json.a.d = []", "json.a.e = null",
		`json.long = "` + strings.Repeat("é", 39) + "…",
		"json.items is an array of 20 elements; the first 3:",
		`json.items.0.id = "it_0"`, "json.items.0.n = 0",
		`json.items.1.id = "it_1"`, "json.items.1.n = 1",
		`json.items.2.id = "it_2"`, "json.items.2.n = 2",
		"json.tail = true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sample:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var wide []string
	for i := range 100 {
		wide = append(wide, fmt.Sprintf(`"k%d":%d`, i, i))
	}
	root, _ = (&tool.Observation{Body: "{" + strings.Join(wide, ",") + "}"}).JSON()
	if got := sample(root); len(got) != maxLeaves || got[maxLeaves-1] != "json.k39 = 39" {
		t.Errorf("%d leaves, last %q; want %d ending at k39", len(got), got[len(got)-1], maxLeaves)
	}
}

// TestSummary bounds the body to 2000 characters and says when it was cut,
// and notes a body that is not JSON.
func TestSummary(t *testing.T) {
	var b strings.Builder
	writeSummary(&b, &tool.Observation{Status: 503, Body: strings.Repeat("ü", 2500)})
	got := b.String()
	want := "status: 503\nbody (5000 bytes):\n" + strings.Repeat("ü", 2000) + "… [cut: 2000 of 2500 characters shown]\nThe body is not JSON.\n"
	if got != want {
		t.Errorf("summary:\n%.200q…\nwant\n%.200q…", got, want)
	}
}

// TestPromptRedacted: the model is shown the step, its failures, the
// response (body, structured content and sampled leaves) and why Level 1
// did not hold only after the run's redactor: no value a trace would blank
// reaches it, whether by its place, its shape or REELIER_REDACT.
func TestPromptRedacted(t *testing.T) {
	password, envValue, github := "Hunter2-"+"prompt", "env-value-"+"P4wQz8", "ghp_"+strings.Repeat("pRm5", 9)
	t.Setenv(redact.RedactEnv, "HEAL_SECRET")
	t.Setenv("HEAL_SECRET", envValue)
	src := "---\nname: t\ndescription: d\n---\n\n## Steps\n\n### Step 1 — Sign in as " + envValue + "\n" +
		"- intent: send Authorization: Bearer " + github + "\n" +
		`- action: t {"user": "ann", "password": "` + password + `"}` + "\n" +
		`- assert: json.token == "x"` + "\n- effect: read\n"
	skill, diags := grammar.Parse("t.skill.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	body := `{"token":"` + github + `","password":"` + password + `","note":"` + envValue + `","title":"{\"password\":\"` + password + `\"}"}`
	d := &replay.Divergence{
		Step:        skill.Steps[0],
		Observation: &tool.Observation{Status: 200, Body: body, Structured: []byte(body)},
		Failures:    []replay.Failure{{Message: `json.token == "x" failed: got "` + github + `" and ` + envValue}},
	}
	_, user := prompt(d, 1, `the patch does not hold: json.title == "y" failed: got "{\"password\":\"`+password+`\"}"`)
	for _, secret := range []string{password, envValue, github} {
		if strings.Contains(user, secret) {
			t.Errorf("the prompt holds %q:\n%s", secret, user)
		}
	}
	for _, want := range []string{"«redacted:HEAL_SECRET»", `json.password = "«redacted»"`, `"password":"«redacted»"`} {
		if !strings.Contains(user, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, user)
		}
	}
}
