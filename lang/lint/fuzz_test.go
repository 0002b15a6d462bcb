package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// FuzzLint runs every rule and the fixer over arbitrary input: nothing may
// panic, every finding must point inside the file, and a fixed file must
// parse and be a fixed point of Fix.
func FuzzLint(f *testing.F) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, c := range testutil.Corpus(f, kind) {
			f.Add(c.Src)
		}
	}
	cases, _ := filepath.Glob("testdata/*/*.skill.md")
	for _, c := range cases {
		if src, err := os.ReadFile(c); err == nil {
			f.Add(src)
		}
	}
	for _, r := range All() {
		f.Add([]byte(r.Example))
	}
	d, err := New(Config{Today: testToday})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file := ParseFile("fuzz.skill.md", src)
		body := file.body()
		for _, dg := range d.Run(file) {
			if dg.Range.Start.Offset < 0 || int(dg.Range.End.Offset) > len(body) || dg.Range.Start.Offset > dg.Range.End.Offset {
				t.Fatalf("finding outside the file: %v", dg)
			}
			for _, fx := range dg.Fixes {
				if err := checkEdits(fx.Edits, len(body)); err != nil {
					t.Fatalf("%s kept a bad fix: %v", dg.Code, err)
				}
			}
		}
		res := d.Fix(file)
		if !res.Changed() {
			return
		}
		if _, diags := grammar.Parse("fuzz.skill.md", res.Src); diags.HasErrors() {
			t.Fatalf("Fix wrote a file that does not parse:\n%v", diags)
		}
		if again := d.Fix(ParseFile("fuzz.skill.md", res.Src)); again.Changed() {
			t.Fatalf("a second Fix changed the file again")
		}
	})
}
