package receipt

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

const skillSrc = `---
name: bookings
description: every outcome once
---

## Steps

### Step 1 — List bookings
- intent: list them
- action: http.get {"url": "{{base}}/bookings"}
- assert: status == 200
- assert: json.bookings length > 0
- bind: id = json.bookings.0.id
- effect: read

### Step 2 — Read the first booking
- intent: read it without checking
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- effect: read

### Step 3 — Check it is confirmed
- intent: check the status
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- assert: json.status == "confirmed"
- assert: json.guests >= 1
- assert: json.note is string
- effect: read

### Step 4 — Cancel it
- intent: cancel
- action: http.post {"url": "{{base}}/bookings/{{id}}/cancel"}
- effect: destructive
`

// run replays skillSrc against a server on 127.0.0.1 and fixes every
// measured duration so the receipt is reproducible.
func run(t *testing.T, opts replay.Options) (*replay.Result, string) {
	t.Helper()
	return runSrc(t, context.Background(), skillSrc, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bookings" {
			io.WriteString(w, `{"bookings":[{"id":"bk_1"},{"id":"bk_2"}]}`)
			return
		}
		io.WriteString(w, `{"id":"bk_1","status":"pending","guests":2,"note":null,"text":"`+strings.Repeat("long ", 60)+`"}`)
	}, opts)
}

// runSrc replays a skill against handler on 127.0.0.1 ({{base}} is its
// URL) with durations fixed, and returns the result and the URL.
func runSrc(t *testing.T, ctx context.Context, src string, handler http.HandlerFunc, opts replay.Options) (*replay.Result, string) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	s, diags := grammar.Parse("bookings.skill.md", []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	opts.Tools = tool.Registry{}
	httptool.Register(opts.Tools, nil)
	if opts.Vars == nil {
		opts.Vars = map[string]string{}
	}
	opts.Vars["base"] = srv.URL
	opts.Clock = func() time.Time { return time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC) }
	res := replay.Run(ctx, s, opts)
	for i := range res.Record.Steps {
		// Pinned: a skipped step (a write gate held it back) is timed
		// too, and on a loaded machine that is not always 0 ms.
		res.Record.Steps[i].Ms = 0
		if res.Record.Steps[i].Outcome != runlog.Skipped {
			res.Record.Steps[i].Ms = int64(3 * (i + 1))
		}
	}
	res.Record.Finish(res.Record.Verdict == runlog.VerdictInterrupted)
	res.Elapsed = 21*time.Millisecond + 400*time.Microsecond
	return res, srv.URL
}

// pinned replaces the test server's URL and any port in out.
func pinned(out []byte, url string) []byte {
	out = bytes.ReplaceAll(out, []byte(url), []byte("http://127.0.0.1:PORT"))
	return regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAll(out, []byte("127.0.0.1:PORT"))
}

func TestText(t *testing.T) {
	res, url := run(t, replay.Options{})
	var b bytes.Buffer
	Text(&b, "skills/bookings.skill.md", res, Style{})
	testutil.Golden(t).Assert(t, "receipt", bytes.ReplaceAll(b.Bytes(), []byte(url), []byte("http://127.0.0.1:PORT")))
}

func TestTextRefusal(t *testing.T) {
	res, url := run(t, replay.Options{})
	res.Steps = res.Steps[3:] // just the refused step
	res.Steps[0].Record.Outcome = runlog.Failed
	res.Steps[0].Failures = []replay.Failure{{Message: "Refusing to execute destructive step without --yes. Filled action: http.post {\"url\":\"" + url + "/x\"}"}}
	var b bytes.Buffer
	Step(&b, "skills/bookings.skill.md", res.Steps[0], Style{})
	if !strings.Contains(b.String(), "✗ Refusing to execute destructive step without --yes. Filled action: http.post") {
		t.Errorf("refusal line missing from\n%s", b.String())
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{W: &b, Style: Style{Color: true}, File: "skills/bookings.skill.md", Terminal: true}
	res, url := run(t, replay.Options{OnStepStart: p.Start, OnStep: p.Done})
	Footer(&b, res, p.Style)
	out := strings.ReplaceAll(b.String(), url, "http://127.0.0.1:PORT")
	// Durations in the live lines are real; pin them.
	out = regexp.MustCompile(`\d+ms\b`).ReplaceAllString(out, "Nms")
	testutil.Golden(t).Assert(t, "progress", []byte(out))
}

func TestFormatDuration(t *testing.T) {
	if got := formatDuration(12, 12_400); got != "12ms" {
		t.Errorf("got %s", got)
	}
	if got := formatDuration(0, 350); got != "0.3ms" {
		t.Errorf("got %s", got)
	}
}

// TestJUnit: a failed check is a <failure>, a step that failed for any
// other reason (here the write gate) an <error>, and unchecked steps and
// steps that did not run are <skipped> with their reason.
func TestJUnit(t *testing.T) {
	failing, url := run(t, replay.Options{})
	passing, _ := run(t, replay.Options{})
	passing.Record.Skill = "bookings-ok"
	passing.Record.Steps = passing.Record.Steps[:2]
	passing.Record.Finish(false)
	passing.Record.OpenQuestions = []runlog.OpenQuestion{{Line: 12, Step: 1}, {Line: 30, Step: 2}}
	const gateSrc = "---\nname: cancel\ndescription: d\n---\n\n## Steps\n\n" +
		"### Step 1 — Cancel it\n- intent: i\n- action: http.post {\"url\": \"{{base}}/x\"}\n- effect: destructive\n\n" +
		"### Step 2 — Upsert\n- intent: i\n- action: http.post {\"url\": \"{{base}}/y\"}\n- assert: status == 200\n- effect: idempotent-write\n"
	gated, gateURL := runSrc(t, context.Background(), gateSrc, serve("{}"), replay.Options{})
	held, heldURL := runSrc(t, context.Background(), gateSrc, serve("{}"), replay.Options{Yes: false, SkipWrites: true})
	held.Record.Skill = "cancel-held"
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	stopped, _ := runSrc(t, cancelled, gateSrc, serve("{}"), replay.Options{})
	stopped.Record.Skill = "cancel-interrupted"
	out, err := JUnit([]Run{
		{File: "skills/bookings.skill.md", Result: failing}, {File: "skills/ok.skill.md", Result: passing},
		{File: "skills/ok.skill.md", Result: passing, FailOpenQuestions: true},
		{File: "skills/cancel.skill.md", Result: gated}, {File: "skills/cancel.skill.md", Result: held},
		{File: "skills/cancel.skill.md", Result: stopped},
	})
	if err != nil {
		t.Fatal(err)
	}
	validateJUnit(t, out)
	for _, want := range []string{`<failure message=`, `<testcase name="open questions" classname="bookings-ok" time="0.000">`,
		`<failure message="2 open questions the compiler could not answer (lines 12, 30)" type="open-questions">`, `<error message="Refusing to execute destructive step`, `type="gate"`, `<skipped message="not run: the run was interrupted">`, `<skipped message="not run: the write gate held it back`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("report lacks %s", want)
		}
	}
	out = pinned(pinned(pinned(out, url), gateURL), heldURL)
	testutil.Golden(t).Assert(t, "report", out)
}

// The JUnit schema shape (Ant's junit task, as CI reporters read it),
// decoded strictly enough to check every rule a reader relies on.
type xSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Errors   string   `xml:"errors,attr"`
	Skipped  string   `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []xSuite `xml:"testsuite"`
}

type xSuite struct {
	Name       string `xml:"name,attr"`
	Tests      string `xml:"tests,attr"`
	Failures   string `xml:"failures,attr"`
	Errors     string `xml:"errors,attr"`
	Skipped    string `xml:"skipped,attr"`
	Time       string `xml:"time,attr"`
	Timestamp  string `xml:"timestamp,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []xCase `xml:"testcase"`
}

type xCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Time      string `xml:"time,attr"`
	Failure   []struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error []struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"error"`
	Skipped []struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
}

var (
	decimalRE   = regexp.MustCompile(`^\d+(\.\d+)?$`)
	timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)
)

// validateJUnit checks the report against the schema's rules: required
// attributes present and typed, counts that agree with the testcases, at
// most one result element per testcase, and unchecked never a pass.
func validateJUnit(t *testing.T, data []byte) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Error("missing XML declaration")
	}
	var doc xSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("report is not XML: %v", err)
	}
	count := func(s string) int {
		t.Helper()
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Errorf("count %q is not a non-negative integer", s)
		}
		return n
	}
	var tests, failures, errs, skipped int
	for _, s := range doc.Suites {
		if s.Name == "" || !decimalRE.MatchString(s.Time) || !timestampRE.MatchString(s.Timestamp) {
			t.Errorf("suite %q: name, time %q or timestamp %q invalid", s.Name, s.Time, s.Timestamp)
		}
		var f, e, sk int
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" || !decimalRE.MatchString(c.Time) {
				t.Errorf("testcase %+v lacks name, classname or a decimal time", c)
			}
			if len(c.Failure)+len(c.Error)+len(c.Skipped) > 1 {
				t.Errorf("testcase %q has more than one result element", c.Name)
			}
			if len(c.Failure) == 1 && (c.Failure[0].Message == "" || c.Failure[0].Text == "") {
				t.Errorf("failure of %q without message or text", c.Name)
			}
			if len(c.Error) == 1 && (c.Error[0].Message == "" || c.Error[0].Type == "" || c.Error[0].Text == "") {
				t.Errorf("error of %q without message, type or text", c.Name)
			}
			if len(c.Skipped) == 1 && c.Skipped[0].Message == "" {
				t.Errorf("skipped %q without a reason", c.Name)
			}
			f += len(c.Failure)
			e += len(c.Error)
			sk += len(c.Skipped)
		}
		if count(s.Tests) != len(s.Cases) || count(s.Failures) != f || count(s.Skipped) != sk || count(s.Errors) != e {
			t.Errorf("suite %q counts tests=%s failures=%s errors=%s skipped=%s disagree with its testcases", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped)
		}
		tests += len(s.Cases)
		failures += f
		errs += e
		skipped += sk
	}
	if count(doc.Tests) != tests || count(doc.Failures) != failures || count(doc.Errors) != errs || count(doc.Skipped) != skipped || !decimalRE.MatchString(doc.Time) {
		t.Errorf("testsuites totals %+v disagree with the suites", doc)
	}
	if !bytes.Contains(data, []byte(reasonUnchecked)) {
		t.Error("no unchecked step reported as skipped with its reason")
	}
}

// healer heals step 3 (or fails to) the way the ladder reports it.
type healer func(d *replay.Divergence) *replay.Healing

func (h healer) Heal(_ context.Context, d *replay.Divergence) *replay.Healing { return h(d) }

// TestTextHeal shows the receipt lines of escalation: a heal written back,
// a heal that could not be written back, and an escalation that failed.
func TestTextHeal(t *testing.T) {
	pending, d := grammar.ParseAssert(`json.status == "pending"`, ast.Pos{})
	if d != nil {
		t.Fatal(d)
	}
	// 812 input and 64 output tokens at $1 and $5 per million: $0.001132.
	c := int64(1132)
	usage := &runlog.LLMUsage{InputTokens: 812, OutputTokens: 64, Models: []runlog.ModelUsage{{Model: "claude-haiku-4-5", InputTokens: 812, OutputTokens: 64, CostMicroUSD: &c}}}
	tests := []struct {
		name string
		h    *replay.Healing
	}{
		{"healed", &replay.Healing{Level: 1, Attempted: 1, Usage: usage, Reason: "bookings start out pending now", Asserts: []ast.Assert{pending}}},
		{"not saved", &replay.Healing{Level: 2, Attempted: 2, Usage: usage, Reason: "bookings start out pending now", Asserts: []ast.Assert{pending},
			NotSaved: errors.New("skills/bookings.skill.md is read-only (mode -r--r--r--)")}},
		{"not healed", &replay.Healing{Attempted: 2, Usage: usage, Failures: []replay.Failure{
			{Message: "Level 1 heal failed: patch refused: the patch removes all 3 asserts; a checked step must stay checked"},
			{Message: "Level 2 heal failed: LLM request failed: http://127.0.0.1:PORT/chat/completions answered HTTP 429 Too Many Requests: slow down"},
			{Message: "Level 3: Level 2 could not heal step 3 (Check it is confirmed) either; fix the skill by hand"}}}},
	}
	var b bytes.Buffer
	for _, tt := range tests {
		res, url := run(t, replay.Options{Yes: true, Healer: healer(func(*replay.Divergence) *replay.Healing { return tt.h })})
		fmt.Fprintf(&b, "==== %s\n", tt.name)
		Text(&b, "skills/bookings.skill.md", res, Style{})
		report, err := JUnit([]Run{{File: "skills/bookings.skill.md", Result: res}})
		want := fmt.Sprintf(`<property name="reelier.level" value="%d"></property>`, tt.h.Level)
		if err != nil || !bytes.Contains(report, []byte(want)) {
			t.Errorf("%s: JUnit report lacks %s:\n%s", tt.name, want, report)
		}
		b = *bytes.NewBuffer(bytes.ReplaceAll(b.Bytes(), []byte(url), []byte("http://127.0.0.1:PORT")))
	}
	testutil.Golden(t).Assert(t, "receipts", b.Bytes())
}

// TestProgressPlain: off a terminal, progress writes each step's line as
// the step ends — no running line, no cursor control — and the whole of
// it is byte for byte the receipt Text writes at the end.
func TestProgressPlain(t *testing.T) {
	var live bytes.Buffer
	p := &Progress{W: &live, File: "skills/bookings.skill.md"}
	var seen []int // bytes written when each step ended
	res, _ := run(t, replay.Options{OnStepStart: p.Start, OnStep: func(sr *replay.StepResult) {
		p.Done(sr)
		seen = append(seen, live.Len())
	}})
	var whole bytes.Buffer
	Text(&whole, "skills/bookings.skill.md", res, Style{})
	var streamed bytes.Buffer
	Header(&streamed, "skills/bookings.skill.md", res.Record.Skill)
	streamed.Write(live.Bytes())
	Footer(&streamed, res, Style{})
	// runSrc pins each step's duration after the run; the lines written
	// live carry the real ones.
	ms := regexp.MustCompile(`\d+ms\b`)
	if a, b := ms.ReplaceAllString(streamed.String(), "Nms"), ms.ReplaceAllString(whole.String(), "Nms"); a != b {
		t.Errorf("streamed receipt differs from the whole one:\n%s\n---\n%s", a, b)
	}
	if strings.Contains(live.String(), "\x1b") || strings.Contains(live.String(), "\r") || strings.Contains(live.String(), "RUN") {
		t.Errorf("plain progress wrote cursor control or a running line: %q", live.String())
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Errorf("step %d wrote nothing when it ended: %v", i+1, seen)
		}
	}
}
