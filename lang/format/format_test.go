package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/reelier/reelier/testkit/testutil"
)

// TestFormat checks the printer four ways on every valid corpus skill:
// the output matches its golden; formatting the golden changes nothing;
// parsing the output gives the same tree as parsing the input; and the
// output is valid.
func TestFormat(t *testing.T) {
	g := testutil.Golden(t)
	for _, f := range testutil.Corpus(t, "valid") {
		t.Run(f.Name, func(t *testing.T) {
			skill, diags := grammar.Parse(f.Name, f.Src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			out := format.Source(skill)
			g.Assert(t, f.Name, out)

			again, diags := grammar.Parse(f.Name, out)
			if len(diags) > 0 {
				t.Fatalf("formatted output does not parse:\n%v", diags)
			}
			if diff := testutil.DiffSkills(skill, again); diff != "" {
				t.Errorf("re-parsed tree differs (-input +formatted):\n%s", diff)
			}
			if twice := format.Source(again); !bytes.Equal(twice, out) {
				t.Errorf("formatting is not idempotent:\n%s", format.Diff(f.Name, out, twice))
			}
		})
	}
}

// TestFormatKeepsWhatPeopleWrote pins the three things the original's
// serializer dropped: prose inside a step, extra frontmatter keys, and a
// section between two steps.
func TestFormatKeepsWhatPeopleWrote(t *testing.T) {
	src := "---\nname: n\nowner: team-a\nallowed-tools: http.get\ndescription: d\n---\n\n### Step 1 - One\nWhy this step exists.\n- effect: read\n- intent: i\n- action: t {\"b\":1,\"a\":2}\nTrailing note.\n\n## Between\n\nKeep me.\n\n### Step 2 — Two\n- intent: j\n- action: t []\n- effect: read\n"
	want := "---\nname: n\nowner: team-a\nallowed-tools: http.get\ndescription: d\n---\n\n### Step 1 — One\nWhy this step exists.\n- intent: i\n- action: t {\"b\": 1, \"a\": 2}\n- effect: read\nTrailing note.\n\n## Between\n\nKeep me.\n\n### Step 2 — Two\n- intent: j\n- action: t []\n- effect: read\n"
	skill, diags := grammar.Parse("x", []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := string(format.Source(skill)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s\ndiff:\n%s", got, want, format.Diff("x", []byte(want), []byte(got)))
	}
}

// TestFormatLineEndings: a CRLF file stays CRLF and a BOM stays.
func TestFormatLineEndings(t *testing.T) {
	src := "\xEF\xBB\xBF---\r\nname: n\r\ndescription: d\r\n---\r\n### Step 1 - One\r\n- intent: i\r\n- action: t {}\r\n- effect: read\r\n"
	want := "\xEF\xBB\xBF---\r\nname: n\r\ndescription: d\r\n---\r\n### Step 1 — One\r\n- intent: i\r\n- action: t {}\r\n- effect: read\r\n"
	skill, diags := grammar.Parse("x", []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := string(format.Source(skill)); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// FuzzFormat: whenever input parses, its canonical form parses to the same
// tree, and formatting is idempotent.
func FuzzFormat(f *testing.F) {
	for _, c := range testutil.Corpus(f, "valid") {
		f.Add(c.Src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		skill, diags := grammar.Parse("fuzz", src)
		if diags.HasErrors() {
			return
		}
		out := format.Source(skill)
		again, diags := grammar.Parse("fuzz", out)
		if diags.HasErrors() {
			t.Fatalf("canonical form does not parse: %v\ninput: %q\noutput: %q", diags, src, out)
		}
		if diff := testutil.DiffSkills(skill, again); diff != "" {
			t.Fatalf("re-parse differs:\n%s\ninput: %q\noutput: %q", diff, src, out)
		}
		if twice := format.Source(again); !bytes.Equal(twice, out) {
			t.Fatalf("not idempotent: %q -> %q", out, twice)
		}
		checkMatches(t, skill, src, out)
		checkMatches(t, again, out, out)
	})
}

// checkMatches fails unless format.Matches(skill, src) says whether src
// is out, skill's canonical form, and says no for out with a byte more,
// a byte less or a byte changed.
func checkMatches(t *testing.T, skill *ast.Skill, src, out []byte) {
	t.Helper()
	if got, want := format.Matches(skill, src), bytes.Equal(src, out); got != want {
		t.Fatalf("Matches = %v, want %v\nsource: %q\ncanonical: %q", got, want, src, out)
	}
	variants := [][]byte{append(bytes.Clone(out), '\n'), append(bytes.Clone(out), 'x')}
	if len(out) > 0 {
		variants = append(variants, out[:len(out)-1], out[1:])
		for _, at := range []int{0, len(out) / 2, len(out) - 1} {
			changed := bytes.Clone(out)
			changed[at]++
			variants = append(variants, changed)
		}
	}
	for _, v := range variants {
		if format.Matches(skill, v) {
			t.Fatalf("Matches says yes for %q, canonical %q", v, out)
		}
	}
}

// TestMatches: over every corpus file and generated skills, Matches says
// whether the file is in canonical form exactly when comparing it with
// Source does.
func TestMatches(t *testing.T) {
	var files []testutil.CorpusFile
	for _, kind := range []string{"valid", "invalid"} {
		files = append(files, testutil.Corpus(t, kind)...)
	}
	for _, n := range []int{1, 10, 200} {
		files = append(files, testutil.CorpusFile{Name: fmt.Sprintf("generated%d", n), Src: skillgen.Skill(n)})
	}
	canonical := 0
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			skill, diags := grammar.Parse("m", f.Src)
			if diags.HasErrors() {
				return
			}
			out := format.Source(skill)
			if bytes.Equal(out, f.Src) {
				canonical++
			}
			checkMatches(t, skill, f.Src, out)
		})
	}
	if canonical == 0 {
		t.Fatal("no canonical file among the inputs: the yes answer is untested")
	}
}

// BenchmarkFormat1000 prints a parsed 1,000-step skill.
func BenchmarkFormat1000(b *testing.B) {
	skill, diags := grammar.Parse("bench", skillgen.Skill(1000))
	if len(diags) > 0 {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	for b.Loop() {
		format.Source(skill)
	}
}

// TestWriteStreamsWhatSourcePrints prints every valid corpus skill through
// Write, one step at a time, to a writer that is not a bytes.Buffer and to
// one that takes a byte a call: the bytes are Source's.
func TestWriteStreamsWhatSourcePrints(t *testing.T) {
	wrappers := []struct {
		name string
		wrap func(io.Writer) io.Writer
	}{
		{"plain writer", func(w io.Writer) io.Writer { return w }},
		{"one byte a call", func(w io.Writer) io.Writer { return oneByteWriter{w} }},
	}
	for _, f := range testutil.Corpus(t, "valid") {
		skill, diags := grammar.Parse(f.Name, f.Src)
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		want := format.Source(skill)
		for _, w := range wrappers {
			var sink plainWriter
			if err := format.Write(w.wrap(&sink), skill, slices.Values(skill.Steps)); err != nil {
				t.Fatalf("%s (%s): %v", f.Name, w.name, err)
			}
			if !bytes.Equal(sink.b, want) {
				t.Errorf("%s (%s): Write differs from Source:\n%s", f.Name, w.name, format.Diff(f.Name, want, sink.b))
			}
		}
	}
}

// TestWriteReportsTheWritersError: a writer that fails part way stops the
// printing, and Write returns its error.
func TestWriteReportsTheWritersError(t *testing.T) {
	skill, diags := grammar.Parse("big", skillgen.Skill(5000))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	boom := errors.New("disk full")
	for _, limit := range []int{0, 1, 4096, 100_000} {
		pulled := 0
		steps := func(yield func(*ast.Step) bool) {
			for _, st := range skill.Steps {
				pulled++
				if !yield(st) {
					return
				}
			}
		}
		err := format.Write(&failingWriter{left: limit, err: boom}, skill, steps)
		if !errors.Is(err, boom) {
			t.Errorf("limit %d: Write returned %v, want the writer's error", limit, err)
		}
		if pulled == len(skill.Steps) {
			t.Errorf("limit %d: Write printed all %d steps after the writer failed", limit, pulled)
		}
	}
}

// plainWriter is an io.Writer that is not a bytes.Buffer.
type plainWriter struct{ b []byte }

func (w *plainWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// oneByteWriter accepts at most one byte a call, reporting a short write.
type oneByteWriter struct{ w io.Writer }

func (o oneByteWriter) Write(p []byte) (int, error) {
	for i := range p {
		if _, err := o.w.Write(p[i : i+1]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

// failingWriter accepts left bytes, then fails every call with err.
type failingWriter struct {
	left int
	err  error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.left {
		w.left -= len(p)
		return len(p), nil
	}
	n := w.left
	w.left = 0
	return n, w.err
}

// TestFrontmatterLiteralBlock: a map value of several lines built in code
// is printed as a literal block, one line per line, and reads back as
// exactly that text; one that a block cannot hold stays double-quoted.
func TestFrontmatterLiteralBlock(t *testing.T) {
	tests := []struct {
		value string
		block bool
	}{
		{"a(x: string) in=0123abcd\nb() in=89abcdef hints=readOnly", true},
		{`c("my key": string) in=0123abcd` + "\n" + "d() in=0123abcd", true},
		{"one line: quoted", false},
		{"two\n lines, the second led by a blank", false},
		{"trailing blank \nx", false},
		{"a\n\nb", false},
		{"tab\there\nx", false},
	}
	for _, tt := range tests {
		skill := &ast.Skill{
			Frontmatter: &ast.Frontmatter{Entries: []*ast.FrontmatterEntry{
				{Key: "name", Value: "s"}, {Key: "description", Value: "d"},
				{Key: "metadata", Kind: ast.MapValue, Items: []*ast.FrontmatterEntry{{Key: "reelier-tools", Value: tt.value}}},
			}},
			Steps: []*ast.Step{{Number: 1, Title: "t"}},
		}
		out := format.Source(skill)
		if got := strings.Contains(string(out), "reelier-tools: |-\n"); got != tt.block {
			t.Errorf("%q printed as a block: %v; want %v\n%s", tt.value, got, tt.block, out)
		}
		back, _ := grammar.Parse("s.skill.md", out)
		if e := back.Frontmatter.Metadata("reelier-tools"); e == nil || e.Value != tt.value {
			t.Errorf("%q reads back as %+v\n%s", tt.value, e, out)
		}
	}
}

// TestSelectionRegexSlash: a selection regex built by a program with an
// unescaped slash outside a class prints escaped, so the text parses back
// to a selection that means the same; one read from a file prints as
// written.
func TestSelectionRegexSlash(t *testing.T) {
	sel := &ast.Selection{Pick: ast.PickFirst, Source: ast.Source{Kind: ast.SourceLines, Pattern: `^(a/b)[/]c\/d$`}}
	b := &ast.SelectionBind{Name: "x", Sel: sel}
	got := format.Bind(b)
	if want := `x = first(lines /^(a\/b)[/]c\/d$/)`; got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
	back, d := grammar.ParseBind(got, ast.Pos{Line: 1, Column: 1})
	if d != nil {
		t.Fatal(d)
	}
	if again := format.Bind(back); again != got {
		t.Errorf("round trip %q -> %q", got, again)
	}
}
