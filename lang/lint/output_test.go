package lint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/reelier/reelier/testkit/testutil"
)

// unicodeSample has a multi-byte title and an emoji before a finding, so
// byte, UTF-16 and code point columns all differ.
const unicodeSample = `---
name: unicode
description: Non-ASCII text before a finding
---

# Ünïcode

Inputs: none

### Step 1 — Blåbær 🫐
- intent: Fetch the berries
- action: http.get {"url": "https://api.example.test/bær/🫐", "from": "2026-07-10"}
- assert: json.items.2.name == "blåbær"
- effect: read
`

func outputResults(t *testing.T) (*Driver, []Result) {
	t.Helper()
	d, err := New(Config{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	for _, f := range []*File{
		ParseFile("skills/unicode.skill.md", []byte(unicodeSample)),
		ParseFile("skills/sample.skill.md", []byte(sample)),
		ParseFile("skills/broken.skill.md", []byte(strings.Replace(sample, "- effect: read\n", "- effect: maybe\n", 1))),
	} {
		results = append(results, Result{File: f.Name, Diagnostics: d.Run(f)})
	}
	return d, results
}

func TestOutput(t *testing.T) {
	d, results := outputResults(t)
	g := testutil.Golden(t)
	for _, format := range []string{FormatText, FormatJSON, FormatGitHub, FormatSARIF} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, format, d, results); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, format, b.Bytes())
		})
	}
	if err := Write(&bytes.Buffer{}, "xml", d, results); err == nil {
		t.Error("Write accepted an unknown format")
	}
}

// TestSARIF validates the sarif output against the SARIF 2.1.0 JSON
// schema and checks the parts code scanning reads.
func TestSARIF(t *testing.T) {
	d, results := outputResults(t)
	var b bytes.Buffer
	if err := Write(&b, FormatSARIF, d, results); err != nil {
		t.Fatal(err)
	}
	rep, err := sarif.FromBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Validate(); err != nil {
		t.Fatalf("SARIF output does not validate against the 2.1.0 schema: %v", err)
	}

	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID                   string `json:"id"`
						HelpURI              string `json:"helpUri"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			ColumnKind string `json:"columnKind"`
			Results    []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
							EndLine     int `json:"endLine"`
							EndColumn   int `json:"endColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-schema-2.1.0.json") || len(log.Runs) != 1 {
		t.Fatalf("version %q, schema %q, %d runs", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "reelier" || len(run.Tool.Driver.Rules) != len(All()) || run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("driver %q with %d rules, columnKind %q", run.Tool.Driver.Name, len(run.Tool.Driver.Rules), run.ColumnKind)
	}
	for _, r := range run.Tool.Driver.Rules {
		if Lookup(r.ID) == nil || r.HelpURI != Lookup(r.ID).URL() || r.DefaultConfiguration.Level == "" {
			t.Errorf("rule descriptor %+v", r)
		}
	}
	var total int
	for _, r := range results {
		total += len(r.Diagnostics)
	}
	if len(run.Results) != total {
		t.Fatalf("%d results, want %d", len(run.Results), total)
	}
	for _, res := range run.Results {
		if res.RuleIndex < 0 || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s has rule index %d", res.RuleID, res.RuleIndex)
		}
		if res.Level != "error" && res.Level != "warning" && res.Level != "note" || res.Message.Text == "" || len(res.Locations) != 1 {
			t.Errorf("result %+v", res)
		}
		loc := res.Locations[0].PhysicalLocation
		if !strings.HasPrefix(loc.ArtifactLocation.URI, "skills/") || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("location %+v", loc)
		}
	}
	// The date in the unicode sample comes after "æ" (2 bytes, one
	// character) and "🫐" (4 bytes, one character): its SARIF column is 4
	// less than its byte column.
	line := unicodeSample[strings.Index(unicodeSample, "- action"):]
	prefix := line[:strings.Index(line, "2026-07-10")]
	want := utf8.RuneCountInString(prefix) + 1
	if want != len(prefix)+1-4 {
		t.Fatalf("the sample changed: %d characters before the date in %d bytes", want-1, len(prefix))
	}
	found := false
	for _, res := range run.Results {
		if res.RuleID == "date_literal" && strings.HasSuffix(res.Locations[0].PhysicalLocation.ArtifactLocation.URI, "unicode.skill.md") {
			found = true
			if got := res.Locations[0].PhysicalLocation.Region.StartColumn; got != want {
				t.Errorf("date_literal start column = %d, want %d", got, want)
			}
		}
	}
	if !found {
		t.Error("no date_literal result for the unicode sample")
	}
}

func TestEscapeGitHub(t *testing.T) {
	if got := escapeProperty("a:b,c%d\ne"); got != "a%3Ab%2Cc%25d%0Ae" {
		t.Errorf("escapeProperty = %q", got)
	}
	if got := escapeData("a:b,c%d\r\ne"); got != "a:b,c%25d%0D%0Ae" {
		t.Errorf("escapeData = %q", got)
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"skills/a.skill.md": "skills/a.skill.md",
		"./a b.skill.md":    "a%20b.skill.md",
		"/abs/a.skill.md":   "file:///abs/a.skill.md",
		"<standard input>":  "%3Cstandard%20input%3E",
		"dir/ä/🫐.skill.md":  "dir/%C3%A4/%F0%9F%AB%90.skill.md",
	} {
		if got := fileURI(in); got != want {
			t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
		}
	}
}
