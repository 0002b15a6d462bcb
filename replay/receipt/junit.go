package receipt

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
)

// Run is one skill's result in a suite report.
type Run struct {
	// File is the skill file as it was named on the command line.
	File   string
	Result *replay.Result
	// Err is why a skill of the suite could not run at all (missing,
	// unreadable, unparseable, inputs missing); Result is nil then.
	Err error
	// FailOpenQuestions says the run was told to fail on unresolved open
	// questions (--fail-on-open-questions): JUnit then reports them as a
	// failed testcase, as the exit status does.
	FailOpenQuestions bool
}

// The JUnit XML document, in the shape CI systems read (the schema of
// Ant's junit task, as Jenkins, GitLab and GitHub reporters accept it).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	File       string          `xml:"file,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// reasonUnchecked is the reason an unchecked step is reported as skipped.
const reasonUnchecked = "unchecked: the step ran but has no asserts, so nothing was verified"

// JUnit renders the runs as a JUnit XML report: one testsuite per skill,
// one testcase per step. A step whose check failed (an assert or bind did
// not hold) is a <failure>; a step that failed for any other reason — the
// tool, a gate, its inputs — is an <error>; the text lists every failure
// message and the type is the kind. Unchecked and skipped steps are
// <skipped> with a reason. Each suite's reelier.verdict property is the
// run's verdict; reelier.openQuestions counts the skill's unresolved open
// questions, and reelier.openQuestionsNote, when there are some, says
// where they are; with Run.FailOpenQuestions, a failed testcase named
// "open questions" lists them too.
func JUnit(runs []Run) ([]byte, error) {
	doc := junitSuites{Name: "reelier"}
	var total time.Duration
	for _, r := range runs {
		if r.Result == nil {
			// A skill that could not run: one testcase, in error.
			s := brokenSuite(r)
			doc.Tests += s.Tests
			doc.Errors += s.Errors
			doc.Suites = append(doc.Suites, s)
			continue
		}
		s := suite(r)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		total += r.Result.Elapsed
		doc.Suites = append(doc.Suites, s)
	}
	doc.Time = seconds(total.Milliseconds())
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}

// highestLevel is the highest level any step held at: 0 for plain replay,
// 1 or 2 when escalation healed a step.
func highestLevel(steps []runlog.StepRecord) int {
	top := 0
	for _, st := range steps {
		top = max(top, st.Level)
	}
	return top
}

// suite converts one run.
func suite(r Run) junitSuite {
	rec := r.Result.Record
	s := junitSuite{
		Name:      rec.Skill,
		Tests:     len(rec.Steps),
		Time:      seconds(r.Result.Elapsed.Milliseconds()),
		Timestamp: junitTimestamp(rec.StartedAt),
		File:      r.File,
		Properties: []junitProperty{
			{Name: "reelier.verdict", Value: string(rec.RunVerdict())},
			{Name: "reelier.level", Value: fmt.Sprint(highestLevel(rec.Steps))},
			{Name: "reelier.llmTokens", Value: fmt.Sprint(rec.Totals.LLMInputTokens + rec.Totals.LLMOutputTokens)},
			{Name: "reelier.openQuestions", Value: fmt.Sprint(len(rec.OpenQuestions))},
		},
	}
	if note := OpenQuestionsNote(rec.OpenQuestions); note != "" {
		s.Properties = append(s.Properties, junitProperty{Name: "reelier.openQuestionsNote", Value: note})
	}
	for _, st := range rec.Steps {
		c := junitCase{Name: fmt.Sprintf("step %d: %s", st.N, st.Title), Classname: rec.Skill, Time: seconds(st.Ms)}
		switch st.Outcome {
		case runlog.Failed:
			kind := kindOf(&st)
			f := &junitFailure{Message: "step failed", Type: string(kind), Text: strings.Join(st.Failures, "\n")}
			if len(st.Failures) > 0 {
				f.Message = st.Failures[0]
			}
			if kind == runlog.KindCheck {
				s.Failures++
				c.Failure = f
			} else {
				s.Errors++
				c.Error = f
			}
		case runlog.Unchecked:
			s.Skipped++
			c.Skipped = &junitSkipped{Message: reasonUnchecked}
		case runlog.Skipped:
			s.Skipped++
			c.Skipped = &junitSkipped{Message: "not run: " + skipReason(st.Skip)}
		case runlog.Interrupted:
			s.Skipped++
			c.Skipped = &junitSkipped{Message: runlog.InterruptedNote}
		}
		s.Cases = append(s.Cases, c)
	}
	if note := OpenQuestionsNote(rec.OpenQuestions); note != "" && r.FailOpenQuestions {
		// The run fails on them (--fail-on-open-questions): one failed
		// testcase says where they are.
		s.Tests++
		s.Failures++
		s.Cases = append(s.Cases, junitCase{Name: "open questions", Classname: rec.Skill, Time: seconds(0),
			Failure: &junitFailure{Message: note, Type: "open-questions",
				Text: note + "; --fail-on-open-questions fails a run while any is unresolved"}})
	}
	if d := rec.ToolDrift; d != nil && !d.Ignored && len(d.Tools) > 0 {
		// The run stopped before step 1: one failed testcase says why.
		lines := replay.DriftLines(d)
		s.Tests++
		s.Failures++
		s.Cases = append([]junitCase{{Name: "tool drift", Classname: rec.Skill, Time: seconds(0),
			Failure: &junitFailure{Message: "tool drift: " + lines[0], Type: "tool-drift", Text: strings.Join(lines, "\n")}}}, s.Cases...)
	}
	return s
}

// seconds renders milliseconds as JUnit's decimal seconds.
func seconds(ms int64) string { return fmt.Sprintf("%d.%03d", ms/1000, ms%1000) }

// junitTimestamp converts a record timestamp to the schema's ISO 8601 form
// without a zone designator (it is UTC).
func junitTimestamp(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

// brokenSuite reports a skill that could not run as one testcase in error.
func brokenSuite(r Run) junitSuite {
	msg := "the skill could not run"
	if r.Err != nil {
		msg = r.Err.Error()
	}
	first, _, _ := strings.Cut(msg, "\n")
	return junitSuite{
		Name: r.File, Tests: 1, Errors: 1, Time: seconds(0), File: r.File,
		Cases: []junitCase{{Name: "load " + r.File, Classname: r.File, Time: seconds(0),
			Error: &junitFailure{Message: first, Type: "input", Text: msg}}},
	}
}
