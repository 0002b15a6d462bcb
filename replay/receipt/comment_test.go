package receipt

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
)

// hostile is text a skill or a server could put in a title, a failure or
// a name: HTML, Markdown links and images, a table border, code, a
// mention, a control character and a bidi override.
const hostile = "<script>x</script> [click](https://evil.test) ![i](https://evil.test/i.png) | col ` *b* @octocat @acme/team \x1b[31m \u202e"

// TestComment: the pull-request comment of a suite — a failed skill with
// a hostile title and failure, a healed step, a skill that did not run,
// open questions, the ledger's pages and the run's link (golden). No
// HTML tag, link, image, table border or @mention from the runs gets
// through; the only links are the run's and the ledger's.
func TestComment(t *testing.T) {
	src := "---\nname: shop-check\ndescription: d\n---\n\n## Steps\n\n### Step 1 — A\n- intent: a\n- action: http.get {\"url\": \"https://x.example\"}\n- assert: status == 200\n- effect: read\n\n" +
		"### Step 2 — B\n- intent: b\n- action: http.get {\"url\": \"https://x.example\"}\n- assert: status == 200\n- effect: read\n"
	skill, diags := grammar.Parse("skills/shop.skill.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := &CIReport{Skills: []CISkill{
		{File: "skills/shop.skill.md", Skill: skill, Record: &runlog.Record{Skill: "shop-check", Steps: []runlog.StepRecord{
			{N: 1, Title: hostile, Outcome: runlog.Failed, Failures: []string{"observed " + hostile}},
			{N: 2, Title: "B", Outcome: runlog.Passed, Level: 1, Why: &runlog.Why{Change: "assert now reads json.data.id @octocat"}},
		}, OpenQuestions: []runlog.OpenQuestion{{Line: 30}, {Line: 31}}}},
		{File: "skills/@team/x.skill.md"},
	}}
	var b strings.Builder
	if err := r.Comment(&b, CommentInfo{Marker: "<!-- reelier:pr-comment workflow=\"w\" job=\"j\" -->", Workflow: "Reelier replay", Job: "replay",
		Commit: "0123456789abcdef0123456789abcdef01234567", RunURL: "https://github.com/acme/shop/actions/runs/9", LedgerURL: "https://ledger.example.test/"}); err != nil {
		t.Fatal(err)
	}
	body := b.String()
	testutil.Golden(t).Assert(t, "comment", []byte(body))
	checkCommentSafe(t, body)
	for _, want := range []string{"| <code>skills/shop.skill.md</code> | ❌ failed | 2 | 1 | 1 | 2 | [shop-check](https://ledger.example.test/skills/shop-check) |",
		"<code>skills/shop.skill.md:8</code> step 1", "<code>skills/shop.skill.md:14</code> step 2", "healed at L1", "**Open questions:** 2 unresolved", "**1 skill(s) did not run**",
		"[the workflow run and its job summary](https://github.com/acme/shop/actions/runs/9)", "<code>0123456</code>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, body)
		}
	}
}

// mdLink finds Markdown links and images whose [ is not escaped (a
// bare URL in a failure is shown as text, which GitHub may autolink: it
// is seen for what it is); mention a mention; tag an HTML tag.
var (
	mdLink  = regexp.MustCompile(`(?:^|[^\\])!?\[[^\]]*\]\(([^)]*)\)`)
	mention = regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]`)
	tag     = regexp.MustCompile(`<(/?)([a-zA-Z]+)`)
)

// checkCommentSafe holds a comment to what its own code writes: tags
// only code and sub, links only to the run and the ledger, no mention,
// no control character, no unescaped table border inside a cell.
func checkCommentSafe(t *testing.T, body string) {
	t.Helper()
	for _, m := range tag.FindAllStringSubmatch(body, -1) {
		if m[2] != "code" && m[2] != "sub" {
			t.Errorf("a <%s%s> tag got through:\n%s", m[1], m[2], body)
		}
	}
	for _, m := range mdLink.FindAllStringSubmatch(body, -1) {
		if !strings.HasPrefix(m[1], "https://github.com/acme/") && !strings.HasPrefix(m[1], "https://ledger.example.test/") {
			t.Errorf("a link to %q got through:\n%s", m[1], body)
		}
	}
	if m := mention.FindString(body); m != "" {
		t.Errorf("a mention %q got through:\n%s", m, body)
	}
	for _, r := range body {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e' {
			t.Errorf("a control or bidi character %U got through", r)
		}
	}
	borders := -1
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if borders < 0 {
			borders = n
		} else if n != borders {
			t.Errorf("a table row with %d borders, the header %d: %q", n, borders, line)
		}
	}
}

// TestCommentBounds: many failed steps are listed up to the bound, with
// how many more; a body that would pass GitHub's limit is cut at a line.
func TestCommentBounds(t *testing.T) {
	var steps []runlog.StepRecord
	for i := range 5000 {
		steps = append(steps, runlog.StepRecord{N: i + 1, Title: strings.Repeat("t", 40), Outcome: runlog.Failed, Failures: []string{strings.Repeat("f", 300)}})
	}
	var files []CISkill
	for i := range 800 {
		files = append(files, CISkill{File: fmt.Sprintf("skills/%s/s%03d.skill.md", strings.Repeat("long-folder-name", 5), i), Record: &runlog.Record{Skill: "s", Steps: steps[:2]}})
	}
	files[0].Record = &runlog.Record{Skill: "big", Steps: steps}
	var b strings.Builder
	if err := (&CIReport{Skills: files}).Comment(&b, CommentInfo{Marker: "<!-- m -->"}); err != nil {
		t.Fatal(err)
	}
	body := b.String()
	if len(body) > MaxCommentBytes+500 || !strings.HasPrefix(body, "<!-- m -->\n") || !strings.Contains(body, "the comment is cut here") || !strings.HasSuffix(body, "</sub>\n") {
		t.Errorf("a long body: %d bytes\n%s", len(body), body[max(0, len(body)-400):])
	}
	b.Reset()
	(&CIReport{Skills: files[:1]}).Comment(&b, CommentInfo{})
	if body := b.String(); strings.Count(body, "- ❌ ") != maxCommentSteps || !strings.Contains(body, "- …and 4975 more: the job summary lists every one.") {
		t.Errorf("the failed steps are not bounded:\n%s", body)
	}
}

// FuzzComment: whatever a run's texts hold, the comment carries no tag,
// link, mention or control character of theirs.
func FuzzComment(f *testing.F) {
	f.Add(hostile, "skills/a.skill.md", "fail")
	f.Add("@a", "@b", "[x](y)")
	f.Add("a\nb|c", "<code>", "</sub>")
	f.Fuzz(func(t *testing.T, title, file, failure string) {
		r := &CIReport{Skills: []CISkill{{File: file, Record: &runlog.Record{Skill: title, Steps: []runlog.StepRecord{
			{N: 1, Title: title, Outcome: runlog.Failed, Failures: []string{failure}},
			{N: 2, Title: failure, Outcome: runlog.Passed, Level: 2, Why: &runlog.Why{Change: title}},
		}}}}}
		var b strings.Builder
		r.Comment(&b, CommentInfo{Marker: "<!-- m -->", RunURL: "https://github.com/acme/shop/actions/runs/1", LedgerURL: "https://ledger.example.test"})
		checkCommentSafe(t, strings.TrimPrefix(b.String(), "<!-- m -->\n"))
	})
}
