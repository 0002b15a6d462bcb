package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/lint"
	"github.com/reelier/reelier/lang/lsp"
)

// TestColumnsAgree: one finding after multi-byte characters and a tab has
// the same column, counted in characters, in every place a column is
// written outside the editor (Diagnostic.String, lint text, json, github
// and sarif, parse --json, and the column a JSON rejection names in its
// message), while the language server still counts UTF-16 units.
func TestColumnsAgree(t *testing.T) {
	cases := []struct {
		name, q, sep string
		col, col16   int // of what follows `{"q": "<q>",<sep>` on line 8
	}{
		{"ascii", "abc", " ", 33, 33},
		{"é: 2 bytes", "é", " ", 31, 31},
		{"中: 3 bytes", "中", " ", 31, 31},
		{"😀: 4 bytes, 2 UTF-16 units", "😀", " ", 31, 32},
		{"a tab", "x", "\t", 31, 31},
		{"all of them", "é中😀", "\t", 33, 34},
	}
	driver, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []struct {
				rest, rule string
				col, col16 int
			}{
				{"}", "parse_error", tt.col, tt.col16},                           // invalid JSON, at the '}'
				{`"d": "2026-07-10"}`, "date_literal", tt.col + 6, tt.col16 + 6}, // a lint finding, at the date
			} {
				src := "---\nname: c\ndescription: d\n---\n\n### Step 1 — Fetch é\n- intent: fetch\n" +
					`- action: http.get {"q": "` + tt.q + `",` + tt.sep + f.rest + "\n" +
					"- assert: status == 200\n- effect: read\n"
				d := finding(t, driver, src, f.rule)
				checkColumns(t, f.rule, src, d, f.col, f.col16)
			}
		})
	}
}

// finding returns the one finding of rule in src, as lint reports it.
func finding(t *testing.T, driver *lint.Driver, src, rule string) ast.Diagnostic {
	t.Helper()
	var found []ast.Diagnostic
	for _, d := range driver.Run(lint.ParseFile(stdinName, []byte(src))) {
		if d.Code == rule {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s findings, want 1: %v", len(found), rule, found)
	}
	return found[0]
}

func checkColumns(t *testing.T, rule, src string, d ast.Diagnostic, col, col16 int) {
	t.Helper()
	if d.Range.Start.Line != 8 || int(d.Range.Start.Column) != col {
		t.Errorf("%s: the finding is at %d:%d, want 8:%d", rule, d.Range.Start.Line, d.Range.Start.Column, col)
	}
	at := fmt.Sprintf("%s:8:%d: ", stdinName, col)
	if !strings.HasPrefix(d.String(), at) {
		t.Errorf("%s: Diagnostic.String() = %q, want it to start %q", rule, d.String(), at)
	}
	if rule == "parse_error" {
		_, diags := grammar.Parse(stdinName, []byte(src))
		if len(diags) != 1 || !strings.HasPrefix(diags[0].String(), at) || !strings.HasSuffix(diags[0].Message, fmt.Sprintf(" at column %d", col)) {
			t.Errorf("parse: %v, want one rejection at %q naming column %d", diags, at, col)
		}
		var parsed struct {
			Errors []struct{ Line, Column int } `json:"errors"`
		}
		decode(t, cli(t, src, "parse", "--json", "-"), &parsed)
		if len(parsed.Errors) != 1 || parsed.Errors[0].Line != 8 || parsed.Errors[0].Column != col {
			t.Errorf("parse --json: %+v, want line 8 column %d", parsed.Errors, col)
		}
	}

	if out := cli(t, src, "lint", "--format", "text", "-"); !strings.Contains(out, "\n"+at) && !strings.HasPrefix(out, at) {
		t.Errorf("%s: lint text lacks %q:\n%s", rule, at, out)
	}
	var js struct {
		Diagnostics []struct {
			Rule         string
			Line, Column int
		}
	}
	decode(t, cli(t, src, "lint", "--format", "json", "-"), &js)
	n := 0
	for _, jd := range js.Diagnostics {
		if jd.Rule == rule {
			n++
			if jd.Line != 8 || jd.Column != col {
				t.Errorf("%s: lint json at %d:%d, want 8:%d", rule, jd.Line, jd.Column, col)
			}
		}
	}
	if n != 1 {
		t.Errorf("%s: %d findings in lint json, want 1", rule, n)
	}
	if gh, want := cli(t, src, "lint", "--format", "github", "-"), fmt.Sprintf(",line=8,col=%d,", col); !strings.Contains(gh, want) {
		t.Errorf("%s: lint github lacks %q:\n%s", rule, want, gh)
	}
	var sarif struct {
		Runs []struct {
			ColumnKind string `json:"columnKind"`
			Results    []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	decode(t, cli(t, src, "lint", "--format", "sarif", "-"), &sarif)
	if len(sarif.Runs) != 1 || sarif.Runs[0].ColumnKind != "unicodeCodePoints" {
		t.Fatalf("sarif runs %+v", sarif.Runs)
	}
	for _, r := range sarif.Runs[0].Results {
		if r.RuleID == rule {
			if reg := r.Locations[0].PhysicalLocation.Region; reg.StartLine != 8 || reg.StartColumn != col {
				t.Errorf("%s: sarif region %+v, want line 8 column %d", rule, reg, col)
			}
		}
	}

	// The editor's position: 0-based, in UTF-16 units.
	if p := lsp.NewMapper(src).Position(int(d.Range.Start.Offset)); p.Line != 7 || int(p.Character) != col16-1 {
		t.Errorf("%s: LSP position %d:%d, want 7:%d", rule, p.Line, p.Character, col16-1)
	}
}

// cli runs reelier with src on standard input and returns its output.
func cli(t *testing.T, src string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(src), &out, &errb); code != exitOK && code != exitFailed && code != exitUsage {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

func decode(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
}
