package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
)

// Output formats.
const (
	FormatText   = "text"   // path:line:col: severity: message [rule]
	FormatJSON   = "json"   // one JSON document
	FormatSARIF  = "sarif"  // SARIF 2.1.0, for code-scanning upload
	FormatGitHub = "github" // GitHub Actions workflow commands
)

// Formats lists the output formats.
var Formats = []string{FormatText, FormatJSON, FormatSARIF, FormatGitHub}

// Result is the findings of one file, with the text they point into (the
// fixed text after Fix), which the SARIF and GitHub formats need to count
// columns in UTF-16 units.
type Result struct {
	File        string
	Src         []byte
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

func writeText(w io.Writer, results []Result) error {
	var b bytes.Buffer
	for _, d := range all(results) {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
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
			File: d.File, Line: d.Range.Start.Line, Column: d.Range.Start.Column,
			EndLine: d.Range.End.Line, EndColumn: d.Range.End.Column,
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
	srcs := sources(results)
	var b bytes.Buffer
	for _, d := range all(results) {
		src := srcs[d.File]
		msg := d.Message
		if d.Detail != "" {
			msg += "\n" + d.Detail
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n",
			githubLevels[d.Severity], escapeProperty(d.File),
			d.Range.Start.Line, utf16Column(src, d.Range.Start),
			d.Range.End.Line, utf16Column(src, d.Range.End),
			escapeProperty("reelier lint: "+d.Code), escapeData(msg))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// sources maps each file name to its text without a byte order mark.
func sources(results []Result) map[string][]byte {
	m := make(map[string][]byte, len(results))
	for _, r := range results {
		m[r.File] = bytes.TrimPrefix(r.Src, utf8BOM)
	}
	return m
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// utf16Column converts a position's byte column to a 1-based column in
// UTF-16 code units, the unit SARIF and GitHub count in. Without the
// source text it returns the byte column.
func utf16Column(src []byte, p ast.Pos) int {
	start := p.Offset - (p.Column - 1)
	if src == nil || start < 0 || p.Offset > len(src) || start > p.Offset {
		return p.Column
	}
	n := 1
	for line := src[start:p.Offset]; len(line) > 0; {
		r, size := utf8.DecodeRune(line)
		line = line[size:]
		if utf16.RuneLen(r) == 2 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
