package lint

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/sebdah/goldie/v2"
)

// testToday is the date every test lints as if it were today, so goldens
// that mention relative dates stay stable.
var testToday = time.Date(2026, 7, 17, 15, 4, 5, 0, time.UTC)

// onlyRule returns a driver that runs just the named rule (and parse_error).
func onlyRule(t testing.TB, name string) *Driver {
	t.Helper()
	d, err := New(Config{Disable: []string{AllRules}, Enable: []string{name}, Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// renderDiagnostics prints findings one per line, with their fixes, as the
// golden files hold them.
func renderDiagnostics(ds ast.Diagnostics) []byte {
	var b bytes.Buffer
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
		for _, fx := range d.Fixes {
			b.WriteString("\tfix: " + fx.Title + "\n")
			for _, e := range fx.Edits {
				fmt.Fprintf(&b, "\t\t%d:%d-%d:%d %s\n", e.Range.Start.Line, e.Range.Start.Column, e.Range.End.Line, e.Range.End.Column, quoteEdit(e.NewText))
			}
		}
	}
	return b.Bytes()
}

func quoteEdit(s string) string {
	return `"` + strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`, `"`, `\"`).Replace(s) + `"`
}

// TestRules runs every rule over its cases in testdata/<rule>/: a file
// named bad*.skill.md must draw at least one finding of the rule, a file
// named good*.skill.md none. Each case has a golden of its findings and,
// when fixes change it, a golden of the fixed file, which must parse, be
// canonical, and stay unchanged under a second Fix.
func TestRules(t *testing.T) {
	for _, r := range All() {
		t.Run(r.Name, func(t *testing.T) {
			dir := filepath.Join("testdata", r.Name)
			cases, _ := filepath.Glob(filepath.Join(dir, "*.skill.md"))
			var bad, good int
			for _, c := range cases {
				switch base := filepath.Base(c); {
				case strings.HasPrefix(base, "bad"):
					bad++
				case strings.HasPrefix(base, "good"):
					good++
				default:
					t.Errorf("%s: case names start with bad or good", c)
				}
			}
			if bad == 0 || good == 0 {
				t.Fatalf("%s needs at least one bad*.skill.md and one good*.skill.md case", dir)
			}
			d := onlyRule(t, r.Name)
			g := goldie.New(t, goldie.WithFixtureDir(dir))
			for _, c := range cases {
				runCase(t, d, g, r, c)
			}
		})
	}
}

func runCase(t *testing.T, d *Driver, g *goldie.Goldie, r *Rule, path string) {
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, ".skill.md")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := ParseFile(base, src)
	diags := d.Run(f)
	n := 0
	for _, dg := range diags {
		if dg.Code == r.Name {
			n++
		}
	}
	if strings.HasPrefix(name, "bad") && n == 0 {
		t.Errorf("%s: no %s finding", base, r.Name)
	}
	if strings.HasPrefix(name, "good") && n > 0 {
		t.Errorf("%s: %d unexpected %s findings:\n%s", base, n, r.Name, renderDiagnostics(diags))
	}
	g.Assert(t, name+".diagnostics", renderDiagnostics(diags))

	res := d.Fix(f)
	golden := g.GoldenFileName(t, name+".fixed")
	if !res.Changed() {
		if _, err := os.Stat(golden); err == nil && !updating() {
			t.Errorf("%s: no fix applies, but %s exists", base, golden)
		}
		return
	}
	g.Assert(t, name+".fixed", res.Src)
	checkFixed(t, d, base, res.Src)
}

// checkFixed verifies that a fixed file parses, is canonical, and that
// fixing it again changes nothing.
func checkFixed(t *testing.T, d *Driver, name string, out []byte) {
	t.Helper()
	skill, diags := grammar.Parse(name, out)
	if diags.HasErrors() {
		t.Fatalf("%s: fixed output does not parse:\n%v", name, diags)
	}
	if canon := format.Source(skill); !bytes.Equal(canon, out) {
		t.Errorf("%s: fixed output is not canonical:\n%s", name, format.Diff(name, out, canon))
	}
	if again := d.Fix(ParseFile(name, out)); again.Changed() {
		t.Errorf("%s: a second fix changed the file again:\n%s", name, format.Diff(name, out, again.Src))
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestRegistry checks the rule set itself.
func TestRegistry(t *testing.T) {
	if err := Validate(All()); err != nil {
		t.Fatal(err)
	}
	for _, r := range All() {
		if Lookup(r.Name) != r {
			t.Errorf("Lookup(%q) does not find the rule", r.Name)
		}
		if !strings.HasSuffix(r.URL(), "docs/lint.md#"+r.Name) {
			t.Errorf("%s: URL %s", r.Name, r.URL())
		}
	}
	if Lookup("nope") != nil {
		t.Error("Lookup found a rule that does not exist")
	}
}

func TestValidateRejects(t *testing.T) {
	ok := func() *Rule {
		return &Rule{Name: "x", Title: "t", Doc: "d", Example: "e", Category: CategoryClarity, Run: func(*Pass) {}}
	}
	tests := []struct {
		name   string
		mutate func(*Rule)
		want   string
	}{
		{"upper case", func(r *Rule) { r.Name = "Bad" }, "lower_snake"},
		{"double underscore", func(r *Rule) { r.Name = "a__b" }, "lower_snake"},
		{"trailing underscore", func(r *Rule) { r.Name = "a_" }, "lower_snake"},
		{"two-line title", func(r *Rule) { r.Title = "a\nb" }, "one non-empty line"},
		{"no doc", func(r *Rule) { r.Doc = " " }, "must not be empty"},
		{"no example", func(r *Rule) { r.Example = "" }, "must not be empty"},
		{"bad category", func(r *Rule) { r.Category = "misc" }, "unknown category"},
		{"bad severity", func(r *Rule) { r.DefaultSeverity = 9 }, "unknown default severity"},
		{"no run", func(r *Rule) { r.Run = nil }, "no run function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok()
			tt.mutate(r)
			err := Validate([]*Rule{r})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if err := Validate([]*Rule{ok(), ok()}); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("duplicate names: %v", err)
	}
	if err := Validate([]*Rule{nil}); err == nil {
		t.Error("nil rule accepted")
	}
	if err := Validate([]*Rule{ok()}); err != nil {
		t.Errorf("valid rule rejected: %v", err)
	}
}
