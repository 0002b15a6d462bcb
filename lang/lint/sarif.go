package lint

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

// toolURL is the project's home, named in SARIF output.
const toolURL = "https://github.com/reelier/reelier"

// sarifLevels maps severities to SARIF result levels.
var sarifLevels = map[ast.Severity]string{
	ast.SeverityError: "error", ast.SeverityWarning: "warning",
	ast.SeverityInfo: "note", ast.SeverityHint: "note",
}

// writeSARIF prints a SARIF 2.1.0 log with one run: the rules the driver
// ran (with their configured level) and one result per finding, columns
// counted in Unicode code points (the run's columnKind says so), the same
// columns every other output gives.
//
// The log is written from the types below rather than through a SARIF
// library: the one this used (go-sarif) brings a JSON Schema validator
// whose package initialisation every reelier process paid for, SARIF or
// not. The types write what that library wrote, key for key: the SARIF
// 2.1.0 defaults spelt out (kind "fail", rank -1, index -1, the empty
// arrays), keys in the order the library's generated types gave them.
// TestSARIFMatchesGoSARIF builds the same logs with go-sarif and compares
// the bytes; the TestOutput golden pins them too.
func writeSARIF(w io.Writer, d *Driver, results []Result) error {
	b, err := json.MarshalIndent(buildSARIF(d, results), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// sarifSchema is the URI of the SARIF 2.1.0 JSON schema the log names.
const sarifSchema = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/sarif-2.1/schema/sarif-schema-2.1.0.json"

func buildSARIF(d *Driver, results []Result) *sarifLog {
	driver := &sarifToolComponent{
		Contents:            []string{"localizedData", "nonLocalizedData"},
		InformationURI:      toolURL,
		Language:            "en-US",
		Locations:           []struct{}{},
		Name:                "reelier",
		Notifications:       []struct{}{},
		Rules:               []*sarifRule{},
		SupportedTaxonomies: []struct{}{},
		Taxa:                []struct{}{},
	}
	index := map[string]int{}
	for _, r := range d.Rules() {
		rule := &sarifRule{
			DefaultConfiguration: &sarifReportingConfiguration{Enabled: true, Level: sarifLevels[d.Severity(r)], Rank: -1},
			FullDescription:      &sarifMultiformatMessage{Markdown: &r.Doc, Text: &r.Doc},
			HelpURI:              r.URL(),
			ID:                   r.Name,
			Name:                 r.Name,
			Properties:           &sarifTags{Tags: []string{string(r.Category)}},
			Relationships:        []struct{}{},
			ShortDescription:     &sarifMultiformatMessage{Text: &r.Title},
		}
		// A rule named twice is described once, by its last description.
		if i, ok := index[r.Name]; ok {
			driver.Rules[i] = rule
			continue
		}
		index[r.Name] = len(driver.Rules)
		driver.Rules = append(driver.Rules, rule)
	}
	run := &sarifRun{
		Addresses:                []struct{}{},
		ColumnKind:               "unicodeCodePoints",
		Graphs:                   []struct{}{},
		Invocations:              []struct{}{},
		Language:                 "en-US",
		LogicalLocations:         []struct{}{},
		NewlineSequences:         []string{"\r\n", "\n"},
		Policies:                 []struct{}{},
		RedactionTokens:          []string{},
		Results:                  []*sarifResult{},
		RunAggregates:            []struct{}{},
		Taxonomies:               []struct{}{},
		ThreadFlowLocations:      []struct{}{},
		Tool:                     &sarifTool{Driver: driver, Extensions: []struct{}{}},
		Translations:             []struct{}{},
		VersionControlProvenance: []struct{}{},
		WebRequests:              []struct{}{},
		WebResponses:             []struct{}{},
	}
	for _, dg := range all(results) {
		msg := dg.Message
		if dg.Detail != "" {
			msg += "\n" + dg.Detail
		}
		ruleIndex := -1
		if i, ok := index[dg.Code]; ok && dg.Code != "" {
			ruleIndex = i
		}
		res := &sarifResult{
			Attachments:     []struct{}{},
			CodeFlows:       []struct{}{},
			Fixes:           []*sarifFix{},
			GraphTraversals: []struct{}{},
			Graphs:          []struct{}{},
			Kind:            "fail",
			Level:           sarifLevels[dg.Severity],
			Locations: []*sarifLocation{{
				Annotations:      []struct{}{},
				ID:               -1,
				LogicalLocations: []struct{}{},
				PhysicalLocation: &sarifPhysicalLocation{
					ArtifactLocation: sarifArtifact(dg.File),
					Region:           sarifRegion(dg.Range),
				},
				Relationships: []struct{}{},
			}},
			Message:          sarifText(msg),
			Rank:             -1,
			RelatedLocations: []struct{}{},
			RuleID:           dg.Code,
			RuleIndex:        ruleIndex,
			Stacks:           []struct{}{},
			Taxa:             []struct{}{},
		}
		for _, fx := range dg.Fixes {
			change := &sarifArtifactChange{ArtifactLocation: sarifArtifact(dg.File)}
			for _, e := range fx.Edits {
				change.Replacements = append(change.Replacements, &sarifReplacement{
					DeletedRegion:   sarifRegion(e.Range),
					InsertedContent: &sarifArtifactContent{Text: e.NewText},
				})
			}
			res.Fixes = append(res.Fixes, &sarifFix{ArtifactChanges: []*sarifArtifactChange{change}, Description: sarifText(fx.Title)})
		}
		run.Results = append(run.Results, res)
	}
	return &sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []*sarifRun{run}}
}

// sarifText is a plain-text message.
func sarifText(text string) *sarifMessage {
	return &sarifMessage{Arguments: []string{}, Text: text}
}

// sarifArtifact is the artifact location of a file, by URI.
func sarifArtifact(file string) *sarifArtifactLocation {
	return &sarifArtifactLocation{Index: -1, URI: fileURI(file)}
}

// sarifRegion is a range as a SARIF region: 1-based lines and columns in
// code points, the end column just past the last character.
func sarifRegion(r ast.Range) *sarifRegionJSON {
	return &sarifRegionJSON{ByteOffset: -1, CharOffset: -1,
		EndColumn: int(r.End.Column), EndLine: int(r.End.Line), StartColumn: int(r.Start.Column), StartLine: int(r.Start.Line)}
}

// fileURI turns a path into a URI reference: relative paths stay relative
// (code scanning resolves them against the repository root), absolute
// paths become file: URIs.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: strings.TrimPrefix(p, "./")}).String()
}

// The SARIF 2.1.0 objects the log uses. Keys are in the order the log has
// always printed them; arrays this writer never fills are empty arrays of
// struct{} (printed as []).

type sarifLog struct {
	Schema     string      `json:"$schema"`
	Version    string      `json:"version"`
	Runs       []*sarifRun `json:"runs"`
	Properties struct{}    `json:"properties"`
}

type sarifRun struct {
	Addresses                []struct{}     `json:"addresses"`
	ColumnKind               string         `json:"columnKind"`
	Graphs                   []struct{}     `json:"graphs"`
	Invocations              []struct{}     `json:"invocations"`
	Language                 string         `json:"language"`
	LogicalLocations         []struct{}     `json:"logicalLocations"`
	NewlineSequences         []string       `json:"newlineSequences"`
	Policies                 []struct{}     `json:"policies"`
	RedactionTokens          []string       `json:"redactionTokens"`
	Results                  []*sarifResult `json:"results"`
	RunAggregates            []struct{}     `json:"runAggregates"`
	Taxonomies               []struct{}     `json:"taxonomies"`
	ThreadFlowLocations      []struct{}     `json:"threadFlowLocations"`
	Tool                     *sarifTool     `json:"tool"`
	Translations             []struct{}     `json:"translations"`
	VersionControlProvenance []struct{}     `json:"versionControlProvenance"`
	WebRequests              []struct{}     `json:"webRequests"`
	WebResponses             []struct{}     `json:"webResponses"`
}

type sarifTool struct {
	Driver     *sarifToolComponent `json:"driver"`
	Extensions []struct{}          `json:"extensions"`
}

type sarifToolComponent struct {
	Contents            []string     `json:"contents"`
	InformationURI      string       `json:"informationUri"`
	IsComprehensive     bool         `json:"isComprehensive"`
	Language            string       `json:"language"`
	Locations           []struct{}   `json:"locations"`
	Name                string       `json:"name"`
	Notifications       []struct{}   `json:"notifications"`
	Rules               []*sarifRule `json:"rules"`
	SupportedTaxonomies []struct{}   `json:"supportedTaxonomies"`
	Taxa                []struct{}   `json:"taxa"`
}

type sarifRule struct {
	DefaultConfiguration *sarifReportingConfiguration `json:"defaultConfiguration"`
	FullDescription      *sarifMultiformatMessage     `json:"fullDescription"`
	HelpURI              string                       `json:"helpUri"`
	ID                   string                       `json:"id"`
	Name                 string                       `json:"name"`
	Properties           *sarifTags                   `json:"properties"`
	Relationships        []struct{}                   `json:"relationships"`
	ShortDescription     *sarifMultiformatMessage     `json:"shortDescription"`
}

type sarifReportingConfiguration struct {
	Enabled bool   `json:"enabled"`
	Level   string `json:"level,omitempty"`
	Rank    int    `json:"rank"`
}

type sarifMultiformatMessage struct {
	Markdown *string `json:"markdown,omitempty"`
	Text     *string `json:"text,omitempty"`
}

type sarifTags struct {
	Tags []string `json:"tags"`
}

type sarifResult struct {
	Attachments      []struct{}       `json:"attachments"`
	CodeFlows        []struct{}       `json:"codeFlows"`
	Fixes            []*sarifFix      `json:"fixes"`
	GraphTraversals  []struct{}       `json:"graphTraversals"`
	Graphs           []struct{}       `json:"graphs"`
	Kind             string           `json:"kind"`
	Level            string           `json:"level,omitempty"`
	Locations        []*sarifLocation `json:"locations"`
	Message          *sarifMessage    `json:"message"`
	Rank             int              `json:"rank"`
	RelatedLocations []struct{}       `json:"relatedLocations"`
	RuleID           string           `json:"ruleId"`
	RuleIndex        int              `json:"ruleIndex"`
	Stacks           []struct{}       `json:"stacks"`
	Taxa             []struct{}       `json:"taxa"`
}

type sarifMessage struct {
	Arguments []string `json:"arguments"`
	Text      string   `json:"text"`
}

type sarifLocation struct {
	Annotations      []struct{}             `json:"annotations"`
	ID               int                    `json:"id"`
	LogicalLocations []struct{}             `json:"logicalLocations"`
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation"`
	Relationships    []struct{}             `json:"relationships"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation *sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegionJSON       `json:"region"`
}

type sarifArtifactLocation struct {
	Index int    `json:"index"`
	URI   string `json:"uri"`
}

type sarifRegionJSON struct {
	ByteOffset  int `json:"byteOffset"`
	CharOffset  int `json:"charOffset"`
	EndColumn   int `json:"endColumn"`
	EndLine     int `json:"endLine"`
	StartColumn int `json:"startColumn"`
	StartLine   int `json:"startLine"`
}

type sarifFix struct {
	ArtifactChanges []*sarifArtifactChange `json:"artifactChanges,omitempty"`
	Description     *sarifMessage          `json:"description"`
}

type sarifArtifactChange struct {
	ArtifactLocation *sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []*sarifReplacement    `json:"replacements,omitempty"`
}

type sarifReplacement struct {
	DeletedRegion   *sarifRegionJSON      `json:"deletedRegion"`
	InsertedContent *sarifArtifactContent `json:"insertedContent"`
}

type sarifArtifactContent struct {
	Text string `json:"text"`
}
