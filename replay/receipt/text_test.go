package receipt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

// checkSrc is one step that fails its check on whatever body the server
// gives, with a bind that fails too; and a second step that never runs.
const checkSrc = `---
name: bodies
description: one failing step
---

## Steps

### Step 1 — Fetch the report
- intent: fetch it
- action: http.get {"url": "{{base}}/report"}
- assert: status == 201
- bind: id = body match /id=(\w+)/
- effect: read

### Step 2 — Never runs
- intent: after
- action: http.get {"url": "{{base}}/report"}
- assert: status == 200
- effect: read
`

func serve(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }
}

func numbered(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// TestTextResponses: a failed step names each failing assert and bind at
// its file:line, shows the response body with its line breaks, bounded
// to 20 lines and 2,000 characters unless verbose, and says what to do.
func TestTextResponses(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		verbose bool
	}{
		{"empty", "", false},
		{"one short line", `{"ok":false}` + "\n", false},
		{"a few lines", "report\nline two\n\tindented line three\n", false},
		{"crlf lines", "one\r\ntwo\r\n", false},
		{"thirty lines", numbered(30, "line %d of the report\n"), false},
		{"thirty lines verbose", numbered(30, "line %d of the report\n"), true},
		{"one long line", strings.Repeat("0123456789", 250), false},
		{"long lines", numbered(5, strings.Repeat("x", 600)+" %d\n"), false},
	}
	var b bytes.Buffer
	for _, tt := range tests {
		res, url := runSrc(t, context.Background(), checkSrc, serve(tt.body), replay.Options{})
		fmt.Fprintf(&b, "==== %s\n", tt.name)
		for _, sr := range res.Steps {
			Step(&b, "skills/bodies.skill.md", sr, Style{Verbose: tt.verbose})
		}
		b = *bytes.NewBuffer(pinned(b.Bytes(), url))
	}
	testutil.Golden(t).Assert(t, "responses", b.Bytes())
}

func TestBodyLines(t *testing.T) {
	lines := func(n int, l string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = l
		}
		return out
	}
	tests := []struct {
		name                string
		in                  []string
		verbose             bool
		shown, more, moreCh int
		lastSuffix          string
	}{
		{"fits", lines(20, "abc"), false, 20, 0, 0, "abc"},
		{"21 lines", lines(21, "abc"), false, 20, 1, 0, "abc"},
		{"verbose", lines(500, "abc"), true, 500, 0, 0, "abc"},
		{"characters", []string{strings.Repeat("é", 2500)}, false, 1, 0, 500, "é…"},
		{"characters then lines", lines(3, strings.Repeat("y", 1500)), false, 2, 1, 0, "y…"},
		{"exactly the budget", lines(2, strings.Repeat("z", 1000)), false, 2, 0, 0, "z"},
		{"escaped", []string{"a\x1b[2Jb\r"}, false, 1, 0, 0, `a\x1b[2Jb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shown, more, moreCh := bodyLines(tt.in, tt.verbose)
			if len(shown) != tt.shown || more != tt.more || moreCh != tt.moreCh {
				t.Fatalf("%d lines shown, %d more lines, %d more characters; want %d, %d, %d", len(shown), more, moreCh, tt.shown, tt.more, tt.moreCh)
			}
			if last := shown[len(shown)-1]; !strings.HasSuffix(last, tt.lastSuffix) {
				t.Errorf("last line %q does not end in %q", last, tt.lastSuffix)
			}
			total := 0
			for _, l := range shown {
				total += len([]rune(strings.TrimSuffix(l, "…")))
			}
			if !tt.verbose && total > maxBodyChars {
				t.Errorf("%d characters shown, more than %d", total, maxBodyChars)
			}
		})
	}
}

// TestTextNext: after a failed step, the receipt points at the next thing
// to do for each kind of failure.
func TestTextNext(t *testing.T) {
	const head = "---\nname: next\ndescription: d\n---\n\n## Steps\n\n"
	tests := []struct {
		name, steps string
		handler     http.HandlerFunc
	}{
		{"check", "### Step 1 — Check\n- intent: i\n- action: http.get {\"url\": \"{{base}}/x\"}\n- assert: json.ok == true\n- effect: read\n", serve(`{"ok":false}`)},
		{"not json", "### Step 1 — Check\n- intent: i\n- action: http.get {\"url\": \"{{base}}/x\"}\n- assert: json.ok == true\n- effect: read\n", serve("<html>down</html>")},
		{"gate destructive", "### Step 1 — Cancel\n- intent: i\n- action: http.post {\"url\": \"{{base}}/x\"}\n- effect: destructive\n", serve("{}")},
		{"gate write", "### Step 1 — Upsert\n- intent: i\n- action: http.post {\"url\": \"{{base}}/x\"}\n- effect: idempotent-write\n", serve("{}")},
		{"input", "### Step 1 — Read\n- intent: i\n- action: http.get {\"url\": \"{{base}}/{{missing}}\"}\n- assert: status == 200\n- effect: read\n", serve("{}")},
		{"tool", "### Step 1 — Read\n- intent: i\n- action: crm.lookup {\"id\": 1}\n- assert: status == 200\n- effect: read\n", serve("{}")},
	}
	var b bytes.Buffer
	for _, tt := range tests {
		res, url := runSrc(t, context.Background(), head+tt.steps, tt.handler, replay.Options{})
		fmt.Fprintf(&b, "==== %s (kind %s)\n", tt.name, res.Record.Steps[0].Kind)
		Step(&b, "next.skill.md", res.Steps[0], Style{})
		b = *bytes.NewBuffer(pinned(b.Bytes(), url))
	}
	testutil.Golden(t).Assert(t, "next", b.Bytes())
}

// TestTextVerdicts: the result line says the run's one verdict.
func TestTextVerdicts(t *testing.T) {
	const head = "---\nname: verdicts\ndescription: d\n---\n\n## Steps\n\n### Step 1 — Read\n- intent: i\n- action: http.get {\"url\": \"{{base}}/x\"}\n"
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		step  string
		want  runlog.Verdict
		color bool
	}{
		{"passed", context.Background(), "- assert: status == 200\n- effect: read\n", runlog.VerdictPassed, true},
		{"failed", context.Background(), "- assert: status == 404\n- effect: read\n", runlog.VerdictFailed, true},
		{"unchecked", context.Background(), "- effect: read\n", runlog.VerdictUnchecked, false},
		{"interrupted", cancelled, "- assert: status == 200\n- effect: read\n", runlog.VerdictInterrupted, false},
		{"passed with open questions", context.Background(), "- assert: status == 200\n- effect: read\n", runlog.VerdictPassed, false},
		{"passed with one open question", context.Background(), "- assert: status == 200\n- effect: read\n", runlog.VerdictPassed, false},
		{"unchecked with open questions", context.Background(), "- effect: read\n", runlog.VerdictUnchecked, false},
	}
	questions := map[string][]runlog.OpenQuestion{
		"passed with open questions":    {{Line: 12, Step: 1}, {Line: 30, Step: 1}, {Line: 41}},
		"passed with one open question": {{Line: 12, Step: 1}},
		"unchecked with open questions": {{Line: 12, Step: 1}, {Line: 13, Step: 1}},
	}
	var b bytes.Buffer
	for _, tt := range tests {
		res, url := runSrc(t, tt.ctx, head+tt.step, serve("{}"), replay.Options{OpenQuestions: questions[tt.name]})
		if got := res.Record.RunVerdict(); got != tt.want {
			t.Errorf("%s: verdict %s", tt.name, got)
		}
		fmt.Fprintf(&b, "==== %s\n", tt.name)
		Text(&b, "verdicts.skill.md", res, Style{Color: tt.color})
		b = *bytes.NewBuffer(pinned(b.Bytes(), url))
	}
	testutil.Golden(t).Assert(t, "verdicts", b.Bytes())
}

func TestSuite(t *testing.T) {
	rec := func(v runlog.Verdict) Run {
		return Run{Result: &replay.Result{Record: runlog.Record{Verdict: v}}}
	}
	open := func(v runlog.Verdict) Run {
		return Run{Result: &replay.Result{Record: runlog.Record{Verdict: v, OpenQuestions: []runlog.OpenQuestion{{Line: 3}}}}}
	}
	tests := []struct {
		runs []Run
		want string
	}{
		{[]Run{rec(runlog.VerdictPassed), rec(runlog.VerdictPassed)}, "suite: 2 skills, 2 passed, 0 failed\n"},
		{[]Run{rec(runlog.VerdictPassed), rec(runlog.VerdictFailed), rec(runlog.VerdictUnchecked)}, "suite: 3 skills, 1 passed, 1 failed, 1 unchecked\n"},
		{[]Run{rec(runlog.VerdictUnchecked), rec(runlog.VerdictInterrupted), {File: "gone.skill.md"}}, "suite: 3 skills, 0 passed, 0 failed, 1 unchecked, 1 interrupted, 1 could not run\n"},
		{[]Run{open(runlog.VerdictPassed), rec(runlog.VerdictPassed), open(runlog.VerdictFailed)}, "suite: 3 skills, 2 passed, 1 failed, 2 with open questions\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		Suite(&b, tt.runs)
		if b.String() != tt.want {
			t.Errorf("got %q, want %q", b.String(), tt.want)
		}
	}
}

// hostileSrc is a shared skill that tries to repaint its own receipt: its
// name, title and server response hold ESC sequences, carriage returns
// and bidi overrides.
const hostileSrc = "---\nname: \"evil\\u202e\"\ndescription: d\n---\n\n## Steps\n\n" +
	"### Step 1 — Innocent\x1b[2J\x1b[H\rPASS  1  all good\u202Edoog\n" +
	"- intent: i\n- action: http.get {\"url\": \"{{base}}/x\"}\n- assert: json.msg == \"ok\"\n- effect: read\n"

// TestTextHostile: nothing a skill, a server or a record holds reaches the
// terminal as a control: ESC, CR and bidi overrides are shown escaped.
func TestTextHostile(t *testing.T) {
	body := "{\"msg\":\"\\u001b[31mFAKE\"}\n\x1b]0;owned\x07line two\rPASSED\u2066\n"
	for _, style := range []Style{{}, {Color: true}, {Verbose: true}} {
		res, url := runSrc(t, context.Background(), hostileSrc, serve(body), replay.Options{})
		res.Steps[0].Failures = append(res.Steps[0].Failures,
			replay.Failure{Message: "a tool said \x1b[2J\rhello\u202e"},
			replay.Failure{Expr: `json.msg == "ok"`, Expected: `== "ok"`, Observed: "\"\x1b[2J\r\u202eko\"", Message: "m"})
		var b bytes.Buffer
		Text(&b, "skills/\x1b[1mevil.skill.md", res, style)
		p := &Progress{W: &b, Style: style, File: "evil.skill.md", Terminal: true}
		p.Start(res.Steps[0].Step)
		p.Done(res.Steps[0])
		out := string(pinned(b.Bytes(), url))
		// The only controls left are the receipt's own colours and the
		// progress line's "\r\x1b[K".
		clean := strings.NewReplacer(ansiReset, "", ansiGreen, "", ansiRed, "", ansiYellow, "", ansiDim, "", "\r\x1b[K", "").Replace(out)
		for _, bad := range []string{"\x1b", "\r", "\u202e", "\u2066", "\x07"} {
			if strings.Contains(clean, bad) {
				t.Errorf("style %+v: receipt holds %q:\n%s", style, bad, out)
			}
		}
		if style == (Style{}) {
			testutil.Golden(t).Assert(t, "hostile", []byte(out))
		}
	}
}

// TestHealTextEscaped: the heal's reason (LLM text), its before/after lines
// and a not-saved error reach the terminal escaped.
func TestHealTextEscaped(t *testing.T) {
	var b strings.Builder
	h := &replay.Healing{Level: 1, Attempted: 1, Reason: "moved \x1b[2Jdata\u202e", NotSaved: errors.New("disk \x1b]0;full\a")}
	rec := &runlog.StepRecord{Why: &runlog.Why{Before: []string{"- assert: json.a == \"\x1b[31m\""}, After: []string{"- assert: json.b == \"\r\""}}}
	writeHeal(&b, &replay.StepResult{Heal: h, Record: rec}, Style{})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\r\a\u202e") {
		t.Fatalf("raw control characters in %q", out)
	}
}

// TestVerboseExchange: --verbose shows every step's request (from the
// record, redacted) and response, and a response's secrets are blanked in
// every receipt, verbose or not.
func TestVerboseExchange(t *testing.T) {
	obs := &tool.Observation{Status: 200, Body: `{"user":"ada","password":"hunter2-hunter2","token":"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}`}
	rec := &runlog.StepRecord{N: 1, Title: "Log in", Outcome: runlog.Passed, Failures: []string{},
		Action: &runlog.ActionRecord{Tool: "login", Args: []byte(`{"user":"ada","password":"«redacted»"}`)}}
	sr := &replay.StepResult{Record: rec, Observation: obs}
	for _, verbose := range []bool{false, true} {
		var b strings.Builder
		Step(&b, "s.skill.md", sr, Style{Verbose: verbose})
		out := b.String()
		if strings.Contains(out, "hunter2") || strings.Contains(out, "ghp_0123") {
			t.Fatalf("verbose %v: a secret reached the receipt:\n%s", verbose, out)
		}
		if got := strings.Contains(out, `request:  login {"user":"ada","password":"«redacted»"}`); got != verbose {
			t.Errorf("verbose %v: request shown %v:\n%s", verbose, got, out)
		}
		if got := strings.Contains(out, "response: status 200"); got != verbose {
			t.Errorf("verbose %v: response shown %v:\n%s", verbose, got, out)
		}
	}
	// A failed step shows its response, redacted, without --verbose.
	rec.Outcome, rec.Failures = runlog.Failed, []string{"json.user == \"bob\" failed"}
	var b strings.Builder
	Step(&b, "s.skill.md", sr, Style{})
	if out := b.String(); !strings.Contains(out, "response: status 200") || strings.Contains(out, "hunter2") {
		t.Fatalf("failed step:\n%s", out)
	}
}
