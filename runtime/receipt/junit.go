package receipt

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/runlog"
)

// Run is one skill's result in a suite report.
type Run struct {
	// File is the skill file as it was named on the command line.
	File   string
	Result *runtime.Result
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

// Reasons given for steps that are reported as skipped.
const (
	reasonUnchecked = "unchecked: the step ran but has no asserts, so nothing was verified"
	reasonSkipped   = "not run: an earlier step failed"
)

// JUnit renders the runs as a JUnit XML report: one testsuite per skill,
// one testcase per step. A failed step is a failure whose text lists every
// failure message; unchecked and skipped steps are skipped with a reason.
func JUnit(runs []Run) ([]byte, error) {
	doc := junitSuites{Name: "reelier"}
	var total time.Duration
	for _, r := range runs {
		s := suite(r)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
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
			{Name: "reelier.level", Value: fmt.Sprint(highestLevel(rec.Steps))},
			{Name: "reelier.llmTokens", Value: fmt.Sprint(rec.Totals.LLMInputTokens + rec.Totals.LLMOutputTokens)},
		},
	}
	for _, st := range rec.Steps {
		c := junitCase{Name: fmt.Sprintf("step %d: %s", st.N, st.Title), Classname: rec.Skill, Time: seconds(st.Ms)}
		switch st.Outcome {
		case runlog.Failed:
			s.Failures++
			c.Failure = &junitFailure{Message: "step failed", Type: "divergence", Text: strings.Join(st.Failures, "\n")}
			if len(st.Failures) > 0 {
				c.Failure.Message = st.Failures[0]
			}
		case runlog.Unchecked:
			s.Skipped++
			c.Skipped = &junitSkipped{Message: reasonUnchecked}
		case runlog.Skipped:
			s.Skipped++
			c.Skipped = &junitSkipped{Message: reasonSkipped}
		}
		s.Cases = append(s.Cases, c)
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
