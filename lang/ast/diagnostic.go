package ast

import (
	"strconv"
	"strings"
)

// Severity ranks a diagnostic. The zero value is SeverityError.
type Severity int

// The severities, most severe first.
const (
	SeverityError Severity = iota
	SeverityWarning
	SeverityInfo
	SeverityHint
)

var severityNames = [...]string{"error", "warning", "info", "hint"}

// String returns the lower-case name of the severity.
func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return "unknown"
	}
	return severityNames[s]
}

// ParseSeverity maps a lower-case name back to its severity.
func ParseSeverity(name string) (Severity, bool) {
	for i, n := range severityNames {
		if n == name {
			return Severity(i), true
		}
	}
	return 0, false
}

// TextEdit replaces the bytes of Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// SuggestedFix is one way to resolve a diagnostic: a titled set of edits
// that must be applied together.
type SuggestedFix struct {
	Title string     `json:"title"`
	Edits []TextEdit `json:"edits"`
}

// Diagnostic is the one report type shared by the parser, the linter, the
// runtime and the language server.
type Diagnostic struct {
	// File is the path the diagnostic is about, as the user named it.
	File string `json:"file,omitempty"`
	// Range is where the problem is.
	Range    Range    `json:"range"`
	Severity Severity `json:"severity"`
	// Code is a short stable lower_snake identifier (a parse rule or lint rule name).
	Code string `json:"code"`
	// Step is the 1-based number of the step the problem is in, or 0 outside steps.
	Step int `json:"step,omitempty"`
	// Message is the one-line summary; parse rejections use the exact
	// wording of the format specification.
	Message string `json:"message"`
	// Detail optionally explains further (what was expected, a suggestion).
	Detail string `json:"detail,omitempty"`
	// Fixes are machine-applicable resolutions, best first.
	Fixes []SuggestedFix `json:"fixes,omitempty"`
}

// String renders the diagnostic as `path:line:col: severity: [step N: ]message [code]`,
// col counted in characters as Pos.Column is.
func (d Diagnostic) String() string { return string(d.AppendText(nil)) }

// AppendText appends String's text of d to b.
func (d Diagnostic) AppendText(b []byte) []byte {
	if d.File != "" {
		b = append(b, d.File...)
		b = append(b, ':')
	}
	b = strconv.AppendInt(b, int64(d.Range.Start.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(d.Range.Start.Column), 10)
	b = append(b, ": "...)
	b = append(b, d.Severity.String()...)
	b = append(b, ": "...)
	if d.Step > 0 {
		b = append(b, "step "...)
		b = strconv.AppendInt(b, int64(d.Step), 10)
		b = append(b, ": "...)
	}
	b = append(b, d.Message...)
	if d.Code != "" {
		b = append(b, " ["...)
		b = append(b, d.Code...)
		b = append(b, ']')
	}
	if d.Detail != "" {
		b = append(b, "\n\t"...)
		for i := 0; i < len(d.Detail); i++ {
			b = append(b, d.Detail[i])
			if d.Detail[i] == '\n' {
				b = append(b, '\t')
			}
		}
	}
	return b
}

// Diagnostics is a list of diagnostics with helpers for the common questions.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic has error severity.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Error joins the rendered diagnostics, one per line, so a list can be
// returned as an error.
func (ds Diagnostics) Error() string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, "\n")
}
