package lint

import (
	"bytes"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/reelier/reelier/lang/ast"
)

// goSARIF is the SARIF log as writeSARIF built it with go-sarif before it
// had types of its own: the reference its bytes must keep matching.
func goSARIF(d *Driver, results []Result) ([]byte, error) {
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI("reelier", toolURL).WithColumnKind("unicodeCodePoints")
	region := func(r ast.Range) *sarif.Region {
		return sarif.NewRegion().
			WithStartLine(int(r.Start.Line)).WithStartColumn(int(r.Start.Column)).
			WithEndLine(int(r.End.Line)).WithEndColumn(int(r.End.Column))
	}
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
					WithRegion(region(dg.Range))))
		for _, fx := range dg.Fixes {
			change := sarif.NewArtifactChange().WithArtifactLocation(sarif.NewSimpleArtifactLocation(fileURI(dg.File)))
			for _, e := range fx.Edits {
				change.AddReplacement(sarif.NewReplacement().
					WithDeletedRegion(region(e.Range)).
					WithInsertedContent(sarif.NewArtifactContent().WithText(e.NewText)))
			}
			res.AddFixe(sarif.NewFix().WithDescription(sarif.NewTextMessage(fx.Title)).AddArtifactChange(change))
		}
	}
	log.AddRun(run)
	var b bytes.Buffer
	err := log.PrettyWrite(&b)
	return b.Bytes(), err
}

func TestSARIFMatchesGoSARIF(t *testing.T) {
	d, results := outputResults(t)
	rng := func(l1, c1, l2, c2 int32) ast.Range {
		return ast.Range{Start: ast.Pos{Line: l1, Column: c1}, End: ast.Pos{Line: l2, Column: c2}}
	}
	odd := &Rule{Name: "odd_rule", Title: "<b>&amp;</b> \u2028 \xff", Doc: "", Category: "", DefaultSeverity: ast.Severity(9)}
	dup := &Rule{Name: "odd_rule", Title: "the second description", Doc: "wins", Category: "style", DefaultSeverity: ast.SeverityHint}
	custom := &Driver{rules: []*Rule{odd, dup, Lookup("unchecked_step")}, severity: map[string]ast.Severity{"unchecked_step": ast.SeverityInfo}}
	hostile := []Result{
		{File: "/abs/path with space/x.skill.md", Diagnostics: ast.Diagnostics{
			{File: "/abs/path with space/x.skill.md", Range: rng(1, 1, 1, 5), Severity: ast.SeverityError, Code: "odd_rule", Message: "a <tag> & \"quote\"", Detail: "line\nbreak \u2029"},
			{File: "/abs/path with space/x.skill.md", Range: rng(0, 0, 0, 0), Severity: ast.Severity(-1), Code: "", Message: ""},
			{File: "/abs/path with space/x.skill.md", Range: rng(3, 2, 4, 1), Severity: ast.SeverityHint, Code: "not_a_rule", Message: "m",
				Fixes: []ast.SuggestedFix{{Title: "no edits"}, {Title: "two edits", Edits: []ast.TextEdit{{Range: rng(3, 2, 3, 2), NewText: "é\t"}, {Range: rng(4, 1, 4, 1), NewText: ""}}}}},
		}},
		{File: "./rel/../y.skill.md", Diagnostics: ast.Diagnostics{
			{File: "./rel/../y.skill.md", Range: rng(2, 1, 2, 2), Severity: ast.SeverityWarning, Code: "unchecked_step", Message: "x?y#z%", Step: 1},
		}},
	}
	for _, tc := range []struct {
		name    string
		d       *Driver
		results []Result
	}{
		{"TestOutput's results", d, results},
		{"no results", d, nil},
		{"empty files", d, []Result{{File: "a.skill.md"}, {File: "b.skill.md"}}},
		{"hostile text, duplicate rule, unknown codes and levels", custom, hostile},
		{"hostile text with every rule", d, hostile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := goSARIF(tc.d, tc.results)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeSARIF(&got, tc.d, tc.results); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("line %d differs:\ngot  %q\nwant %q", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("got %d lines, want %d", len(gl), len(wl))
			}
		})
	}
}
