package grammar_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// checkRanges fails when a diagnostic points outside the source.
func checkRanges(t *testing.T, src []byte, diags ast.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		if d.Range.Start.Offset < 0 || int(d.Range.End.Offset) > len(src) || d.Range.Start.Offset > d.Range.End.Offset {
			t.Fatalf("diagnostic range %+v outside source of %d bytes: %v", d.Range, len(src), d)
		}
		if d.Range.Start.Line < 1 || d.Range.Start.Column < 1 || d.Message == "" || d.Code == "" {
			t.Fatalf("diagnostic without position, message or code: %+v", d)
		}
	}
}

// FuzzParse: any bytes give a tree and diagnostics, never a panic, and
// every diagnostic points into the file; ParseShared and Check agree with
// Parse (checkSameParse).
func FuzzParse(f *testing.F) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, c := range testutil.Corpus(f, kind) {
			f.Add(c.Src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		skill, diags := grammar.Parse("fuzz.skill.md", src)
		if skill == nil {
			t.Fatal("nil skill")
		}
		body := src
		if skill.BOM {
			body = src[3:]
		}
		checkRanges(t, body, diags)
		checkSameParse(t, src, skill, diags)
	})
}

// checkSameParse fails unless ParseShared gives the tree and diagnostics
// Parse gave, and Check the same diagnostics, the same tree without its
// steps, and their count.
func checkSameParse(t *testing.T, src []byte, skill *ast.Skill, diags ast.Diagnostics) {
	t.Helper()
	own := bytes.Clone(src)
	shared, sharedDiags := grammar.ParseShared("fuzz.skill.md", own)
	if !reflect.DeepEqual(shared, skill) || !reflect.DeepEqual(sharedDiags, diags) {
		t.Fatalf("ParseShared differs from Parse:\n%v\nvs\n%v", sharedDiags, diags)
	}
	checked, n, checkDiags := grammar.Check("fuzz.skill.md", bytes.Clone(src))
	if n != len(skill.Steps) || !reflect.DeepEqual(checkDiags, diags) {
		t.Fatalf("Check found %d steps and\n%v\nParse %d and\n%v", n, checkDiags, len(skill.Steps), diags)
	}
	stepless := *skill
	stepless.Steps = nil
	if !reflect.DeepEqual(checked, &stepless) {
		t.Fatalf("Check's skill differs from Parse's without its steps")
	}
}

// selectionSeeds are selection asserts and binds (SPEC.md §5.1), valid and
// not, for FuzzAssert and FuzzBind (binds are those with " = ").
var selectionSeeds = []string{
	`log = max(lines /^(?<file>app-[\w.-]+\.log)\s+(?<when>\S+)$/ by when as date).file`,
	`lead = only(json.entities where entityType == "lead" and name contains "{{customer}}").name`,
	`count(json.entities where name == "{{customer}}") == 0`,
	`total = sum(json.invoices where status == "overdue").amount`,
	`ids = join(json.invoices where status == "overdue" by id as name sep ", ").id`,
	`cheapest = min(lines /^\|\s*(\w+)\s*\|\s*(\d+)\s*\|$/ by 2 as number).1`,
	`only(json where title matches /stale/i) is set`,
	`only(json where title matches /stale/) is set`,
	`first(json.a where n >= -1.5e3 and ok != true and it not contains "\"x\"") == null`,
	`last(lines where it matches /[/]/).x`,
	`x = first(lines /a[/]b(c)/ where 1 matches /[)]/ by 0 as Text)`,
	`x = frist(json.a`,
	`x = max(lines /(a)/)`,
	`x = join(json.a sep "\u00e9{{x}}")`,
	`sum(json.a).b.c > 1`,
}

func exprSeeds(f *testing.F, pick func(*ast.Step) []string) {
	for _, c := range testutil.Corpus(f, "valid") {
		skill, _ := grammar.Parse("", c.Src)
		for _, st := range skill.Steps {
			for _, s := range pick(st) {
				f.Add(s)
			}
		}
	}
}

// FuzzAssert: an accepted assert prints canonically and the canonical
// text parses back to the same canonical text.
func FuzzAssert(f *testing.F) {
	exprSeeds(f, func(st *ast.Step) (out []string) {
		for _, a := range st.Asserts {
			out = append(out, format.Assert(a.Expr))
		}
		return out
	})
	f.Add(`body contains "a"b"`)
	for _, s := range selectionSeeds {
		if !strings.Contains(s, " = ") {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.ContainsAny(src, "\r\n") {
			return // one physical line by construction of the document parser
		}
		a, d := grammar.ParseAssert(src, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			checkRanges(t, []byte(src), ast.Diagnostics{*d})
			return
		}
		canon := format.Assert(a)
		b, d := grammar.ParseAssert(canon, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, src, d)
		}
		if again := format.Assert(b); again != canon {
			t.Fatalf("canonical form not stable: %q -> %q", canon, again)
		}
	})
}

// FuzzBind: the same property for binds.
func FuzzBind(f *testing.F) {
	exprSeeds(f, func(st *ast.Step) (out []string) {
		for _, b := range st.Binds {
			out = append(out, format.Bind(b.Expr))
		}
		return out
	})
	f.Add("today-1d = json.x")
	for _, s := range selectionSeeds {
		if strings.Contains(s, " = ") {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.ContainsAny(src, "\r\n") {
			return
		}
		b, d := grammar.ParseBind(src, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			checkRanges(t, []byte(src), ast.Diagnostics{*d})
			return
		}
		canon := format.Bind(b)
		c, d := grammar.ParseBind(canon, ast.Pos{Line: 1, Column: 1})
		if d != nil || format.Bind(c) != canon || c.BoundName() != b.BoundName() {
			t.Fatalf("canonical form %q of %q does not round-trip: %v", canon, src, d)
		}
	})
}

// FuzzArgs: accepted JSON prints canonically, re-parses to the same
// canonical text, and every hole range covers `{{…}}` in the source when
// the string has no escapes.
func FuzzArgs(f *testing.F) {
	exprSeeds(f, func(st *ast.Step) []string {
		if st.Action == nil || st.Action.Args == nil {
			return nil
		}
		return []string{format.Value(st.Action.Args)}
	})
	f.Fuzz(func(t *testing.T, src string) {
		v, d := grammar.ParseArgs(src, ast.Pos{Line: 1, Column: 1})
		if d != nil {
			checkRanges(t, []byte(src), ast.Diagnostics{*d})
			return
		}
		canon := format.Value(v)
		w, d := grammar.ParseArgs(canon, ast.Pos{Line: 1, Column: 1})
		if d != nil || format.Value(w) != canon {
			t.Fatalf("canonical form %q of %q does not round-trip: %v", canon, src, d)
		}
		for _, h := range ast.Holes(v) {
			s := src[h.Range.Start.Offset:h.Range.End.Offset]
			if !strings.HasPrefix(s, "{{") && !strings.Contains(s, `\`) {
				t.Fatalf("hole %q range covers %q", h.Text(), s)
			}
		}
	})
}

// lineDoc wraps one line into a document at a known place: line 2 for a
// frontmatter line, line 6 for a step bullet.
func lineDoc(frontmatter, bullet string) []byte {
	return []byte("---\n" + frontmatter + "\nname: n\ndescription: d\n---\n### Step 1 — T\n" + bullet + "\n- intent: i\n- action: t {}\n- effect: read\n")
}

// FuzzFrontmatterLine and FuzzStepBullet drive the line grammars through
// the document parser, where they are used.
func FuzzFrontmatterLine(f *testing.F) {
	for _, s := range []string{"k: v", "allowed-tools: a b", "9k: v", ": v", "k:", "- k: v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		src := lineDoc(line, "")
		_, diags := grammar.Parse("", src)
		checkRanges(t, src, diags)
	})
}

func FuzzStepBullet(f *testing.F) {
	for _, s := range []string{"- assert: status == 200", "-bind: x = json.a", "- note: x", "---", "- intent", "prose"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		src := lineDoc("k: v", line)
		_, diags := grammar.Parse("", src)
		checkRanges(t, src, diags)
	})
}
