package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/sebdah/goldie/v2"
)

// corpusGlobs are the skill files whose `parse --json`, `fmt` and `lint`
// outputs TestCorpusOutputsUnchanged holds byte for byte (relative to the
// repository root). The goldens were generated from main before the [perf]
// work (#20) and must not change with any speed-up.
var corpusGlobs = []string{
	"testdata/skills/valid/*.skill.md",
	"testdata/skills/invalid/*.skill.md",
	"lang/lint/testdata/*/*.skill.md",
	"lang/lsp/testdata/*.skill.md",
	"lang/lsp/testdata/*/*.skill.md",
	"serve/testdata/skills/*/*.skill.md",
	"bench/truth/testdata/recordings/*.skill.md",
	"compile/testdata/TestCompile/*.golden",
	"examples/*.skill.md",
	"integrations/*/*/SKILL.md",
}

// corpusFiles lists the corpus, sorted, relative to the repository root.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, g := range corpusGlobs {
		m, err := filepath.Glob(filepath.Join("..", g))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			files = append(files, filepath.ToSlash(strings.TrimPrefix(f, "../")))
		}
	}
	slices.Sort(files)
	if len(files) < 150 {
		t.Fatalf("corpus has %d files, want at least 150", len(files))
	}
	return files
}

// TestCorpusOutputsUnchanged runs `parse --json`, `fmt` and `lint` over
// every corpus file and generated skills of 1, 7 and 60 steps, and compares
// stdout, stderr and the exit code with goldens made before the [perf]
// changes: no speed-up may change a result.
func TestCorpusOutputsUnchanged(t *testing.T) {
	files := corpusFiles(t)
	gen := t.TempDir()
	for _, n := range []int{1, 7, 60} {
		p := filepath.Join(gen, fmt.Sprintf("gen%d.skill.md", n))
		if err := os.WriteFile(p, skillgen.Skill(n), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	cmds := []struct {
		name string
		args []string
	}{
		{"parse", []string{"parse", "--json"}},
		{"fmt", []string{"fmt"}},
		{"lint", []string{"lint"}},
	}
	g := goldie.New(t, goldie.WithFixtureDir("testdata/corpus"))
	for _, c := range cmds {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			for _, f := range files {
				arg := f
				if !filepath.IsAbs(f) {
					arg = filepath.Join("..", f)
				}
				var stdout, stderr bytes.Buffer
				code := run(append(slices.Clone(c.args), arg), strings.NewReader(""), &stdout, &stderr)
				name := f
				if filepath.IsAbs(f) {
					name = "GEN/" + filepath.Base(f)
				}
				clean := func(s string) string {
					s = strings.ReplaceAll(s, arg, name)
					return strings.ReplaceAll(s, gen, "GEN")
				}
				fmt.Fprintf(&out, "=== %s %s (exit %d)\n%s", c.name, name, code, clean(stdout.String()))
				if stderr.Len() > 0 {
					fmt.Fprintf(&out, "--- stderr\n%s", clean(stderr.String()))
				}
			}
			g.Assert(t, c.name, out.Bytes())
		})
	}
}
