package grammar_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/reelier/reelier/testkit/testutil"
)

// edit replaces src[at:at+del] with ins, clamped to the source.
func edit(src []byte, at, del int, ins string) []byte {
	at = min(max(at, 0), len(src))
	end := min(at+max(del, 0), len(src))
	out := append([]byte(nil), src[:at]...)
	out = append(out, ins...)
	return append(out, src[end:]...)
}

// checkReparse fails unless Reparse from prev gives exactly what a full
// parse of next gives, positions, diagnostics and their order included.
func checkReparse(t testing.TB, name string, prevSrc, next []byte) {
	t.Helper()
	prev, prevDiags := grammar.Parse("x.skill.md", prevSrc)
	got, gotDiags := grammar.Reparse("x.skill.md", prevSrc, prev, prevDiags, next)
	want, wantDiags := grammar.Parse("x.skill.md", next)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s: tree differs from a full parse (-full +reparse):\n%s\nbefore:\n%s\nafter:\n%s", name, d, prevSrc, next)
	}
	if d := cmp.Diff(wantDiags, gotDiags); d != "" {
		t.Fatalf("%s: diagnostics differ from a full parse (-full +reparse):\n%s\nafter:\n%s", name, d, next)
	}
	if d := cmp.Diff(wantDiags, grammar.ReparseDiagnostics("x.skill.md", prevSrc, prev, prevDiags, next)); d != "" {
		t.Fatalf("%s: ReparseDiagnostics differs from a full parse (-full +reparse):\n%s", name, d)
	}
}

// snippets are the insertions most likely to move a block boundary or
// change the meaning of a line.
var snippets = []string{
	"x", "\n", "\r\n", "—", "-", "#", " ", "9", "`",
	"\n### Step 2 — Inserted\n", "### Step 7 — Wrong\n", "\n## Section\n", "## ",
	"```\n", "\n- assert: status == 200\n", "- bind: v = json.a\n", "- effect: read\n",
	"- asert: x\n", "{{today}}", "{{v}}", "\"", "}", "---\n", "\n\n", "🙂",
}

// TestReparseMatchesParse applies chains of pseudo-random edits to every
// corpus file and a generated skill, re-parsing incrementally from the
// previous incremental result each time, and compares each result with a
// full parse (so, by induction, every Reparse started from a true Parse
// result).
func TestReparseMatchesParse(t *testing.T) {
	var files []testutil.CorpusFile
	files = append(files, testutil.Corpus(t, "valid")...)
	files = append(files, testutil.Corpus(t, "invalid")...)
	files = append(files, testutil.CorpusFile{Name: "generated", Src: skillgen.Skill(12)})
	for fi, f := range files {
		rng := rand.New(rand.NewPCG(uint64(fi), 11))
		src := f.Src
		skill, diags := grammar.Parse("x.skill.md", src)
		for i := range 40 {
			at := rng.IntN(len(src) + 1)
			var next []byte
			switch rng.IntN(3) {
			case 0:
				next = edit(src, at, 0, snippets[rng.IntN(len(snippets))])
			case 1:
				next = edit(src, at, 1+rng.IntN(8), "")
			default:
				next = edit(src, at, rng.IntN(3), snippets[rng.IntN(len(snippets))])
			}
			name := fmt.Sprintf("%s edit %d", f.Name, i)
			checkOnly := grammar.ReparseDiagnostics("x.skill.md", src, skill, diags, next)
			skill, diags = grammar.Reparse("x.skill.md", src, skill, diags, next)
			if d := cmp.Diff(diags, checkOnly); d != "" {
				t.Fatalf("%s: ReparseDiagnostics differs from Reparse:\n%s", name, d)
			}
			want, wantDiags := grammar.Parse("x.skill.md", next)
			if d := cmp.Diff(want, skill); d != "" {
				t.Fatalf("%s: tree differs from a full parse (-full +reparse):\n%s\nbefore:\n%s\nafter:\n%s", name, d, src, next)
			}
			if d := cmp.Diff(wantDiags, diags); d != "" {
				t.Fatalf("%s: diagnostics differ from a full parse (-full +reparse):\n%s\nafter:\n%s", name, d, next)
			}
			src = next
		}
	}
}

// TestReparseCases covers the edits an editor makes most, and the ones
// that must fall back to a full parse, on LF, CRLF and BOM files.
func TestReparseCases(t *testing.T) {
	base := string(skillgen.Skill(4))
	variants := map[string]string{
		"lf":   base,
		"crlf": string(bytes.ReplaceAll([]byte(base), []byte("\n"), []byte("\r\n"))),
		"bom":  "\xEF\xBB\xBF" + base,
	}
	step2 := bytes.Index([]byte(base), []byte("### Step 2"))
	intent2 := bytes.Index([]byte(base), []byte("- intent: Fetch orders page 2"))
	changelog := bytes.Index([]byte(base), []byte("## Changelog"))
	cases := []struct {
		name     string
		at, del  int
		ins      string
		afterBOM bool
	}{
		{"type in an intent", intent2 + 12, 0, "x", true},
		{"delete in an intent", intent2 + 12, 3, "", true},
		{"break an assert", intent2 - 20, 0, "!", true},
		{"new bullet line", intent2, 0, "- assert: status == 201\n", true},
		{"header inside a block", intent2, 0, "### Step 3 — Split\n", true},
		{"section inside a block", intent2, 0, "## Notes\n", true},
		{"edit a header title", step2 + 20, 0, "Z", true},
		{"renumber a header", step2 + 9, 1, "5", true},
		{"join a header to the line before", step2 - 1, 1, "", true},
		{"edit the frontmatter", 6, 0, "x", true},
		{"edit the changelog", changelog + 4, 0, "x", true},
		{"append at the end", len(base), 0, "more\n", true},
		{"delete a whole step", step2, intent2 - step2 + 10, "", true},
		{"remove the BOM", 0, 3, "", false},
	}
	for vname, src := range variants {
		for _, c := range cases {
			at := c.at
			if vname == "crlf" {
				at += bytes.Count([]byte(base[:min(at, len(base))]), []byte("\n"))
			}
			if vname == "bom" && c.afterBOM {
				at += 3
			}
			checkReparse(t, vname+": "+c.name, []byte(src), edit([]byte(src), at, c.del, c.ins))
		}
	}
}

// TestReparseReuses checks that an edit inside one step leaves the steps
// before it shared with the old tree: the incremental path was taken.
func TestReparseReuses(t *testing.T) {
	src := skillgen.Skill(50)
	prev, diags := grammar.Parse("x", src)
	at := int(prev.Steps[25].Intent.ValueRange.Start.Offset)
	next := edit(src, at, 0, "x")
	got, _ := grammar.Reparse("x", src, prev, diags, next)
	if got.Steps[24] != prev.Steps[24] {
		t.Fatal("step 25 was parsed again; expected it to be reused")
	}
	if got.Steps[25] == prev.Steps[25] || got.Steps[26] == prev.Steps[26] {
		t.Fatal("the edited step and the ones after it must be new nodes")
	}
	if got.Steps[26].HeaderRange.Start.Offset != prev.Steps[26].HeaderRange.Start.Offset+1 {
		t.Fatal("the step after the edit was not shifted")
	}
}

// FuzzReparse: for any source and any edit, Reparse equals a full parse.
func FuzzReparse(f *testing.F) {
	for _, c := range testutil.Corpus(f, "valid") {
		f.Add(c.Src, uint16(len(c.Src)/2), uint8(1), []byte("x"))
	}
	f.Add(skillgen.Skill(3), uint16(300), uint8(0), []byte("\n### Step 2 — X\n"))
	f.Fuzz(func(t *testing.T, src []byte, at uint16, del uint8, ins []byte) {
		checkReparse(t, "fuzz", src, edit(src, int(at), int(del), string(ins)))
	})
}

// BenchmarkReparse1000 re-parses a 1,000-step skill after typing one
// character into the intent of its middle step.
func BenchmarkReparse1000(b *testing.B) {
	src := skillgen.Skill(1000)
	prev, diags := grammar.Parse("bench.skill.md", src)
	at := int(prev.Steps[500].Intent.ValueRange.Start.Offset)
	next := edit(src, at, 0, "x")
	b.ReportAllocs()
	for b.Loop() {
		grammar.Reparse("bench.skill.md", src, prev, diags, next)
	}
}
