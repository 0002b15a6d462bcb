package grammar_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// contractTables reads SPEC.md's contract tables (testutil.SpecTables).
func contractTables(t *testing.T) map[string][][]string { return testutil.SpecTables(t) }

func column(t *testing.T, rows [][]string, i int) []string {
	t.Helper()
	var out []string
	for _, r := range rows {
		if i >= len(r) {
			t.Fatalf("row %q has no column %d", r, i)
		}
		out = append(out, strings.Trim(r[i], "`"))
	}
	return out
}

// TestSpecContract holds SPEC.md's tables to the parser's constants.
func TestSpecContract(t *testing.T) {
	tables := contractTables(t)
	check := func(table string, got, want []string) {
		t.Helper()
		if len(tables[table]) == 0 {
			t.Errorf("SPEC.md has no %q contract table", table)
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("SPEC.md %q table disagrees with the code (-code +spec):\n%s", table, diff)
		}
	}
	check("Step keys", column(t, tables["Step keys"], 0), grammar.StepKeys)

	var effects []string
	for _, e := range ast.Effects {
		effects = append(effects, string(e))
	}
	check("Effects", column(t, tables["Effects"], 0), effects)

	var forms, types []string
	for _, f := range grammar.AssertForms {
		forms, types = append(forms, f.Syntax), append(types, f.Type)
	}
	check("Assert forms", column(t, tables["Assert forms"], 0), forms)
	check("Assert forms", column(t, tables["Assert forms"], 1), types)

	forms, types = nil, nil
	for _, f := range grammar.BindForms {
		forms, types = append(forms, f.Syntax), append(types, f.Type)
	}
	check("Bind forms", column(t, tables["Bind forms"], 0), forms)
	check("Bind forms", column(t, tables["Bind forms"], 1), types)

	check("Reserved names", column(t, tables["Reserved names"], 0), grammar.ReservedNames)
	for _, ex := range column(t, tables["Reserved names"], 1) {
		if !grammar.IsReservedName(ex) {
			t.Errorf("SPEC.md's example %q is not reserved by the parser", ex)
		}
	}

	var codes, msgs []string
	for _, r := range grammar.Rules {
		codes, msgs = append(codes, r.Code), append(msgs, r.Message)
	}
	check("Rejections", column(t, tables["Rejections"], 0), codes)
	check("Rejections", column(t, tables["Rejections"], 1), msgs)

	// §5.1: the picks and orderings are the AST's, in its order.
	check("Selections", column(t, tables["Selections"], 0), grammar.Picks)
	check("Orderings", column(t, tables["Orderings"], 0), grammar.Orderings)

	holes := column(t, tables["Template holes"], 0)
	check("Template holes", holes, []string{"{{name}}", "{{today}}", "{{today-Nd}}", "{{today+Nd}}"})
}

// TestSpecAssertFormsParse: every assert form in the spec, instantiated,
// parses to the node type the spec names.
func TestSpecAssertFormsParse(t *testing.T) {
	examples := map[string]string{
		"status == <int>":            "status == 200",
		"status != <int>":            "status != 500",
		`body contains "<text>"`:     `body contains "ok"`,
		`body not contains "<text>"`: `body not contains "error"`,
		"json.<path> is array|set|number|string|boolean|null": "json.items is array",
		"json.<path> matches /<regex>/":                       "json.id matches /^a/",
		"json.<path> length >|<|>=|<= <int>":                  "json.items length >= 1",
		"json.<path> ==|!= <json-scalar>":                     `json.s == "x"`,
		"json.<path> >|<|>=|<= <json-scalar>":                 "json.n <= 3",
		"<selection> ==|!=|>|<|>=|<= <json-scalar>":           `count(json.items where state == "open") == 0`,
		"<selection> is array|set|number|string|boolean|null": `only(json.items where name == "{{name}}").id is set`,
		"<selection> matches /<regex>/":                       `max(lines /^(\S+) (\S+)$/ by 2 as date).1 matches /\.log$/`,
	}
	for _, f := range grammar.AssertForms {
		ex, ok := examples[f.Syntax]
		if !ok {
			t.Errorf("no example for form %q", f.Syntax)
			continue
		}
		a, d := grammar.ParseAssert(ex, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			t.Errorf("%q: %v", ex, d)
			continue
		}
		if got := strings.TrimPrefix(fmt.Sprintf("%T", a), "*ast."); got != f.Type {
			t.Errorf("%q parsed as %s, spec says %s", ex, got, f.Type)
		}
	}
}

// TestSpecBindFormsParse: every bind form in the spec, instantiated,
// parses to the node type the spec names.
func TestSpecBindFormsParse(t *testing.T) {
	examples := map[string]string{
		"<name> = json.<path>":          "id = json.items.0.id",
		"<name> = body match /<regex>/": "tok = body match /token=(\\w+)/",
		"<name> = <selection>":          `ids = join(json.inv where status == "late" by id as name sep ", ").id`,
	}
	for _, f := range grammar.BindForms {
		ex, ok := examples[f.Syntax]
		if !ok {
			t.Errorf("no example for form %q", f.Syntax)
			continue
		}
		b, d := grammar.ParseBind(ex, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			t.Errorf("%q: %v", ex, d)
			continue
		}
		if got := strings.TrimPrefix(fmt.Sprintf("%T", b), "*ast."); got != f.Type {
			t.Errorf("%q parsed as %s, spec says %s", ex, got, f.Type)
		}
	}
}

// TestSpecSelectionTables: each pick and ordering SPEC.md §5.1 lists is
// accepted in a selection and printed back as written.
func TestSpecSelectionTables(t *testing.T) {
	tables := contractTables(t)
	for _, p := range column(t, tables["Selections"], 0) {
		src := "x = " + p + "(json.a by n)"
		if p == "join" || p == "sum" {
			src = "x = " + p + "(json.a).n"
		}
		if p == "count" {
			src = "x = count(json.a where n > 1)"
		}
		b, d := grammar.ParseBind(src, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			t.Errorf("%q: %v", src, d)
			continue
		}
		if got := string(b.(*ast.SelectionBind).Sel.Pick); got != p {
			t.Errorf("%q picks %q", src, got)
		}
	}
	for _, o := range column(t, tables["Orderings"], 0) {
		src := "x = max(json.a by n as " + strings.ToUpper(o) + ")"
		b, d := grammar.ParseBind(src, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			t.Errorf("%q: %v", src, d)
			continue
		}
		if got := string(b.(*ast.SelectionBind).Sel.Order); got != o {
			t.Errorf("%q orders %q", src, got)
		}
	}
}

// TestSpecFrontmatter holds SPEC.md §2's tables to the parser: the
// metadata keys Reelier defines, and each documented reading.
func TestSpecFrontmatter(t *testing.T) {
	tables := contractTables(t)
	keys := column(t, tables["Reelier metadata keys"], 0)
	if diff := cmp.Diff(ast.MetadataKeys, keys); diff != "" {
		t.Errorf("SPEC.md's metadata keys disagree with ast.MetadataKeys (-code +spec):\n%s", diff)
	}
	rows := tables["Frontmatter readings"]
	if len(rows) == 0 {
		t.Fatal("SPEC.md has no frontmatter readings table")
	}
	for _, r := range rows {
		fm := strings.ReplaceAll(strings.Trim(r[0], "`"), "⏎", "\n")
		src := fmDoc(fm)
		skill, diags := grammar.Parse("s.skill.md", src)
		var errs []string
		for _, d := range diags {
			if d.Severity == ast.SeverityError {
				errs = append(errs, fmt.Sprintf("`%s` at line %d", d.Code, d.Range.Start.Line))
			}
		}
		want := r[1]
		if strings.HasPrefix(want, "`{") {
			got, err := json.Marshal(skill.Frontmatter.Data())
			if err != nil || len(errs) > 0 || "`"+string(got)+"`" != want {
				t.Errorf("%q reads as %s %v, SPEC.md says %s", fm, got, errs, want)
			}
			continue
		}
		if len(errs) != 1 || errs[0] != want {
			t.Errorf("%q gives %v, SPEC.md says %s", fm, errs, want)
		}
	}
}
