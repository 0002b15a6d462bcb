package grammar_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
)

// fmDoc wraps frontmatter lines in fences and a one-step body.
func fmDoc(frontmatter string) []byte {
	return []byte("---\n" + frontmatter + "\n---\n\n### Step 1 — T\n- intent: i\n- action: t {}\n- effect: read\n")
}

func TestFrontmatterYAML(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, fm string
		// data is the frontmatter as JSON, checked when no error is wanted.
		data string
		// diag is "LINE CODE MESSAGE-PREFIX" of the one diagnostic wanted,
		// "" for none.
		diag string
	}{
		{name: "flat", fm: "name: a\ndescription: b c", data: `{"name":"a","description":"b c"}`},
		{name: "quoted and commented", fm: "name: \"a\"  # the name\ndescription: 'it''s'", data: `{"name":"a","description":"it's"}`},
		{name: "folded block", fm: "name: a\ndescription: >-\n  one\n  two\n\n# done", data: `{"name":"a","description":"one two"}`},
		{name: "literal block keeps a hash", fm: "name: a\ndescription: |\n  # not a comment\n  x", data: `{"name":"a","description":"# not a comment\nx\n"}`},
		{name: "allowed-tools list", fm: "name: a\ndescription: b\nallowed-tools:\n- Read\n- \"Bash(git:*)\"", data: `{"name":"a","description":"b","allowed-tools":["Read","Bash(git:*)"]}`},
		{name: "allowed-tools flow", fm: "name: a\ndescription: b\nallowed-tools: [Read, Grep]", data: `{"name":"a","description":"b","allowed-tools":["Read","Grep"]}`},
		{name: "allowed-tools string", fm: "name: a\ndescription: b\nallowed-tools: Read Grep", data: `{"name":"a","description":"b","allowed-tools":"Read Grep"}`},
		{name: "metadata map", fm: "name: a\ndescription: b\nmetadata:\n  author: me\n  reelier-inputs: \"{{x}}\"", data: `{"name":"a","description":"b","metadata":{"author":"me","reelier-inputs":"{{x}}"}}`},
		{name: "metadata flow", fm: "name: a\ndescription: b\nmetadata: {author: me, n: 2}", data: `{"name":"a","description":"b","metadata":{"author":"me","n":2}}`},
		{name: "null value", fm: "name: a\ndescription: b\nlicense:", data: `{"name":"a","description":"b","license":null}`},
		{name: "original colon in value", fm: "name: a\ndescription: Replays it: 3 steps", data: `{"name":"a","description":"Replays it: 3 steps"}`},
		{name: "original no space", fm: "name:a\ndescription: b", data: `{"name":"a","description":"b"}`},
		{name: "non-ascii", fm: "name: zürich\ndescription: Übersicht — 中文", data: `{"name":"zürich","description":"Übersicht — 中文"}`},

		{name: "anchor", fm: "name: a\ndescription: &d b", diag: "3 unsupported_frontmatter Frontmatter holds YAML outside the Agent Skills subset: an anchor (&d)"},
		{name: "alias in one map", fm: "name: a\ndescription: b\nmetadata: {x: &v y, z: *v}", diag: "4 unsupported_frontmatter"},
		{name: "tag", fm: "name: !!str a\ndescription: b", diag: "2 unsupported_frontmatter Frontmatter holds YAML outside the Agent Skills subset: a tag (!!str)"},
		{name: "nested map", fm: "name: a\ndescription: b\nmetadata:\n  x:\n    y: z", diag: "6 unsupported_frontmatter Frontmatter holds YAML outside the Agent Skills subset: a list or map inside metadata"},
		{name: "list in list", fm: "name: a\ndescription: b\nallowed-tools:\n  - [a, b]", diag: "5 unsupported_frontmatter"},
		{name: "deep flow nesting", fm: "name: a\ndescription: b\nx: " + strings.Repeat("[", 200) + strings.Repeat("]", 200), diag: "4 unsupported_frontmatter"},
		{name: "huge value", fm: "name: a\ndescription: " + huge, diag: "3 unsupported_frontmatter Frontmatter holds YAML outside the Agent Skills subset: a value of 1048576 bytes"},
		{name: "duplicate key", fm: "name: a\ndescription: b\nname: c", diag: "4 duplicate_frontmatter_key Duplicate frontmatter key 'name' (first at line 2)"},
		{name: "duplicate metadata key", fm: "name: a\ndescription: b\nmetadata: {k: 1, k: 2}", diag: "4 duplicate_frontmatter_key Duplicate frontmatter key 'metadata.k' (first at line 4)"},
		{name: "document end", fm: "name: a\ndescription: b\n...", diag: "4 malformed_frontmatter_line Malformed frontmatter line: ..."},
		{name: "directive", fm: "%YAML 1.2\nname: a\ndescription: b", diag: "2 malformed_frontmatter_line"},
		{name: "stray list item", fm: "- a\nname: a\ndescription: b", diag: "2 malformed_frontmatter_line Malformed frontmatter line: - a"},
		{name: "bad block value", fm: "name: a\ndescription: b\nallowed-tools:\n  - x\n  - \"unclosed", diag: "6 malformed_frontmatter_line Malformed frontmatter line: - \"unclosed"},
		{name: "lone carriage return", fm: "name: a\ndescription: b\rc", diag: "3 unsupported_frontmatter Frontmatter holds YAML outside the Agent Skills subset: a character YAML reads as a line break"},
		{name: "line separator", fm: "name: a\ndescription: b\u2028c", diag: "3 unsupported_frontmatter"},
		{name: "list name", fm: "name: [a]\ndescription: b", diag: "2 missing_name"},
		{name: "empty quoted description", fm: "name: a\ndescription: \"\"", diag: "3 missing_description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := fmDoc(tt.fm)
			skill, diags := grammar.Parse("f.skill.md", src)
			checkRanges(t, src, diags)
			var errs ast.Diagnostics
			for _, d := range diags {
				if d.Severity == ast.SeverityError && d.Code != grammar.CodeNoSteps {
					errs = append(errs, d)
				}
			}
			if tt.diag == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected diagnostics: %v", errs)
				}
				got, err := json.Marshal(skill.Frontmatter.Data())
				if err != nil || string(got) != tt.data {
					t.Fatalf("data = %s (%v), want %s", got, err, tt.data)
				}
			} else {
				parts := strings.SplitN(tt.diag, " ", 3)
				// Every error is on the line, and one is the one wanted.
				found := false
				for _, d := range errs {
					if line := int(d.Range.Start.Line); parts[0] != itoa(line) {
						t.Fatalf("diagnostic at line %d, want only line %s: %v", line, parts[0], d)
					}
					found = found || d.Code == parts[1] && (len(parts) < 3 || strings.HasPrefix(d.Message, parts[2]))
				}
				if !found {
					t.Fatalf("want %q, got %v", tt.diag, errs)
				}
			}
			// The printer writes the frontmatter back as it was.
			if out := format.Source(skill); !bytes.Equal(out, src) {
				t.Fatalf("printed file differs from the source:\n%s", out)
			}
		})
	}
}

// TestFrontmatterRanges: every entry's key and value ranges hold the text
// they stand for.
func TestFrontmatterRanges(t *testing.T) {
	src := fmDoc("name: \"zürich\"   # c\ndescription: >-\n  x\n  y\nallowed-tools: [Read, 'Gr''ep']\nmetadata:\n  k: v\n  reelier-inputs: \"{{a}}\"")
	skill, diags := grammar.Parse("f.skill.md", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	text := func(r ast.Range) string { return string(src[r.Start.Offset:r.End.Offset]) }
	want := map[string]string{
		"name":                    `"zürich"`,
		"description":             ">-\n  x\n  y",
		"allowed-tools":           "[Read, 'Gr''ep']",
		"allowed-tools/0":         "Read",
		"allowed-tools/1":         "'Gr''ep'",
		"metadata":                "k: v\n  reelier-inputs: \"{{a}}\"",
		"metadata/k":              "v",
		"metadata/reelier-inputs": `"{{a}}"`,
	}
	got := map[string]string{}
	for _, e := range skill.Frontmatter.Entries {
		if text(e.KeyRange) != e.Key {
			t.Errorf("key range of %s holds %q", e.Key, text(e.KeyRange))
		}
		got[e.Key] = text(e.ValueRange)
		for i, it := range e.Items {
			k := e.Key + "/" + it.Key
			if it.Key == "" {
				k = e.Key + "/" + itoa(i)
			}
			got[k] = text(it.ValueRange)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: value range holds %q, want %q", k, got[k], w)
		}
	}
	if e := skill.Frontmatter.Metadata("reelier-inputs"); e == nil || e.Value != "{{a}}" {
		t.Errorf("Metadata(reelier-inputs) = %+v", e)
	}
}

// FuzzFrontmatter: any frontmatter gives diagnostics inside the file and
// no panic, is printed back byte for byte, and its entries' ranges lie in
// the frontmatter.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"name: a\ndescription: b",
		"name: a\ndescription: >-\n  x\n  y\nallowed-tools:\n  - Read\nmetadata:\n  k: v",
		"metadata: {a: &x 1, b: *x}\nname: !!str a",
		"allowed-tools: [Read, [x]]\ndescription: 'a''b'",
		"name: a\n  description: b\n- c\n...\n%YAML 1.2",
		"k: \"\\u00e9\\U0001F600\"\nk: 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fm string) {
		src := fmDoc(fm)
		skill, diags := grammar.Parse("f.skill.md", src)
		checkRanges(t, src, diags)
		if skill.Frontmatter == nil {
			return
		}
		end := skill.Frontmatter.Range.End.Offset
		var walk func(es []*ast.FrontmatterEntry)
		walk = func(es []*ast.FrontmatterEntry) {
			for _, e := range es {
				for _, r := range []ast.Range{e.Range, e.KeyRange, e.ValueRange} {
					if r.Start.Offset < 0 || r.Start.Offset > r.End.Offset || r.End.Offset > end {
						t.Fatalf("entry %q range %+v outside the frontmatter (ends at %d)", e.Key, r, end)
					}
				}
				walk(e.Items)
			}
		}
		walk(skill.Frontmatter.Entries)
		if _, err := json.Marshal(skill.Frontmatter.Data()); err != nil {
			t.Fatal(err)
		}
		if out := format.Source(skill); !bytes.HasPrefix(out, []byte(skill.Frontmatter.Text)) || !strings.HasPrefix(string(src), skill.Frontmatter.Text) {
			t.Fatalf("frontmatter not printed back as written")
		}
	})
}
