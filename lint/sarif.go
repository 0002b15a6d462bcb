package lint

import (
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/reelier/reelier/ast"
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
func writeSARIF(w io.Writer, d *Driver, results []Result) error {
	log := buildSARIF(d, results)
	return log.PrettyWrite(w)
}

func buildSARIF(d *Driver, results []Result) *sarif.Report {
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI("reelier", toolURL).WithColumnKind("unicodeCodePoints")
	for _, r := range d.Rules() {
		run.AddRule(r.Name).
			WithName(r.Name).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.Title)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(r.Doc).WithMarkdown(r.Doc)).
			WithHelpURI(r.URL()).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevels[d.Severity(r)])).
			WithProperties(sarif.NewPropertyBag().Add("tags", []string{string(r.Category)}))
	}
	for _, dg := range all(results) {
		msg := dg.Message
		if dg.Detail != "" {
			msg += "\n" + dg.Detail
		}
		res := run.CreateResultForRule(dg.Code).
			WithLevel(sarifLevels[dg.Severity]).
			WithMessage(sarif.NewTextMessage(msg)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(
				sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(fileURI(dg.File))).
					WithRegion(sarifRegion(dg.Range))))
		for _, fx := range dg.Fixes {
			change := sarif.NewArtifactChange().WithArtifactLocation(sarif.NewSimpleArtifactLocation(fileURI(dg.File)))
			for _, e := range fx.Edits {
				change.AddReplacement(sarif.NewReplacement().
					WithDeletedRegion(sarifRegion(e.Range)).
					WithInsertedContent(sarif.NewArtifactContent().WithText(e.NewText)))
			}
			res.AddFixe(sarif.NewFix().WithDescription(sarif.NewTextMessage(fx.Title)).AddArtifactChange(change))
		}
	}
	log.AddRun(run)
	return log
}

// sarifRegion is a range as a SARIF region: 1-based lines and columns in
// code points, the end column just past the last character.
func sarifRegion(r ast.Range) *sarif.Region {
	return sarif.NewRegion().
		WithStartLine(int(r.Start.Line)).WithStartColumn(int(r.Start.Column)).
		WithEndLine(int(r.End.Line)).WithEndColumn(int(r.End.Column))
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
