package ast

import (
	"fmt"
	"strings"
	"testing"
)

// TestDiagnosticString holds String to its rendering,
// path:line:col: severity: step N: message [code] with the detail
// indented below, written out with fmt here.
func TestDiagnosticString(t *testing.T) {
	at := Range{Start: NewPos(10, 3, 7)}
	tests := []struct {
		name string
		d    Diagnostic
	}{
		{"full", Diagnostic{File: "a.skill.md", Range: at, Severity: SeverityWarning, Code: "x_y", Step: 2, Message: "m", Detail: "d1\nd2\n"}},
		{"no file, step, code or detail", Diagnostic{Range: at, Message: "only"}},
		{"info", Diagnostic{File: "f", Range: at, Severity: SeverityInfo, Message: "i", Code: "c"}},
		{"unknown severity", Diagnostic{Range: at, Severity: Severity(9), Message: "?"}},
		{"zero", Diagnostic{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d
			var want strings.Builder
			if d.File != "" {
				want.WriteString(d.File + ":")
			}
			fmt.Fprintf(&want, "%d:%d: %s: ", d.Range.Start.Line, d.Range.Start.Column, d.Severity)
			if d.Step > 0 {
				fmt.Fprintf(&want, "step %d: ", d.Step)
			}
			want.WriteString(d.Message)
			if d.Code != "" {
				fmt.Fprintf(&want, " [%s]", d.Code)
			}
			if d.Detail != "" {
				want.WriteString("\n\t" + strings.ReplaceAll(d.Detail, "\n", "\n\t"))
			}
			if got := d.String(); got != want.String() {
				t.Fatalf("String() = %q, want %q", got, want.String())
			}
			if got := string(d.AppendText([]byte("pre"))); got != "pre"+want.String() {
				t.Fatalf("AppendText = %q", got)
			}
		})
	}
}
