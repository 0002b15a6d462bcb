package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
)

// Output formats. Every one of them gives 1-based lines and columns, the
// columns counted in characters (Unicode code points) as in ast.Pos.
const (
	FormatText   = "text"   // path:line:col: severity: message [rule]
	FormatJSON   = "json"   // one JSON document
	FormatSARIF  = "sarif"  // SARIF 2.1.0, for code-scanning upload
	FormatGitHub = "github" // GitHub Actions workflow commands
)

// Formats lists the output formats.
var Formats = []string{FormatText, FormatJSON, FormatSARIF, FormatGitHub}

// Result is the findings of one file.
type Result struct {
	File        string
	Diagnostics ast.Diagnostics
}

// Write prints results in the named format. The driver supplies the rule
// descriptions and configured severities SARIF carries.
func Write(w io.Writer, format string, d *Driver, results []Result) error {
	switch format {
	case FormatText:
		return writeText(w, results)
	case FormatJSON:
		return writeJSON(w, results)
	case FormatSARIF:
		return writeSARIF(w, d, results)
	case FormatGitHub:
		return writeGitHub(w, results)
	}
	return fmt.Errorf("unknown output format %q (expected %s)", format, strings.Join(Formats, ", "))
}

// all returns every diagnostic of results, sorted.
func all(results []Result) ast.Diagnostics {
	var out ast.Diagnostics
	for _, r := range results {
		out = append(out, r.Diagnostics...)
	}
	sortDiagnostics(out)
	return out
}

// writeText prints one finding a line (its detail indented below it).
// Messages quote the skill, so the file, message and detail are escaped
// for the terminal: a skill cannot repaint the output that reports on it.
func writeText(w io.Writer, results []Result) error {
	var b []byte
	for _, d := range all(results) {
		d.File, d.Message, d.Detail = termtext.Line(d.File), termtext.Line(d.Message), termtext.Block(d.Detail)
		b = append(d.AppendText(b), '\n')
	}
	_, err := w.Write(b)
	return err
}

// jsonDiagnostic is one finding in the json format.
type jsonDiagnostic struct {
	File      string             `json:"file"`
	Line      int                `json:"line"`
	Column    int                `json:"column"`
	EndLine   int                `json:"endLine"`
	EndColumn int                `json:"endColumn"`
	Severity  string             `json:"severity"`
	Rule      string             `json:"rule"`
	Step      int                `json:"step,omitempty"`
	Message   string             `json:"message"`
	Detail    string             `json:"detail,omitempty"`
	URL       string             `json:"url"`
	Fixes     []ast.SuggestedFix `json:"fixes,omitempty"`
}

func writeJSON(w io.Writer, results []Result) error {
	out := struct {
		Diagnostics []jsonDiagnostic `json:"diagnostics"`
	}{Diagnostics: []jsonDiagnostic{}}
	for _, d := range all(results) {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{
			File: d.File, Line: int(d.Range.Start.Line), Column: int(d.Range.Start.Column),
			EndLine: int(d.Range.End.Line), EndColumn: int(d.Range.End.Column),
			Severity: d.Severity.String(), Rule: d.Code, Step: d.Step,
			Message: d.Message, Detail: d.Detail, URL: DocsURL + "#" + d.Code, Fixes: d.Fixes,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// githubLevels maps severities to workflow command names.
var githubLevels = map[ast.Severity]string{
	ast.SeverityError: "error", ast.SeverityWarning: "warning",
	ast.SeverityInfo: "notice", ast.SeverityHint: "notice",
}

// writeGitHub prints one workflow command per finding, which GitHub
// Actions shows as an annotation on the pull request's diff.
func writeGitHub(w io.Writer, results []Result) error {
	var b bytes.Buffer
	for _, d := range all(results) {
		msg := d.Message
		if d.Detail != "" {
			msg += "\n" + d.Detail
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n",
			githubLevels[d.Severity], escapeProperty(d.File),
			d.Range.Start.Line, d.Range.Start.Column,
			d.Range.End.Line, d.Range.End.Column,
			escapeProperty("reelier lint: "+d.Code), escapeData(msg))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
