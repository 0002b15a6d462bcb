// Package testutil holds helpers shared by the project's tests: one goldie
// configuration, the shared skill corpus, and AST comparison that ignores
// positions.
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/reelier/reelier/lang/ast"
	"github.com/sebdah/goldie/v2"
)

// Golden returns the goldie checker for t; goldens live in
// testdata/<TestName>/ beside the test, regenerated with `go test -update`.
func Golden(t *testing.T) *goldie.Goldie {
	t.Helper()
	return goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden"), goldie.WithTestNameForDir(true), goldie.WithSubTestNameForDir(false))
}

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// CorpusFile is one skill from testdata/skills.
type CorpusFile struct {
	// Name is the file name without directory and without ".skill.md".
	Name string
	Path string
	Src  []byte
}

// Corpus returns the files of testdata/skills/<kind> ("valid" or "invalid"), sorted.
func Corpus(t testing.TB, kind string) []CorpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(Root(), "testdata", "skills", kind, "*.skill.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus files for %s: %v", kind, err)
	}
	sort.Strings(paths)
	out := make([]CorpusFile, 0, len(paths))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		out = append(out, CorpusFile{Name: name[:len(name)-len(".skill.md")], Path: p, Src: src})
	}
	return out
}

// IgnorePositions makes cmp.Diff compare skills by content only: ranges,
// positions and the verbatim texts' own ranges are left out.
var IgnorePositions = cmp.Options{
	cmpopts.IgnoreTypes(ast.Range{}, ast.Pos{}),
	cmpopts.EquateEmpty(),
}

// DiffSkills returns a human-readable difference between two skills'
// content, or "" when they are the same.
func DiffSkills(a, b *ast.Skill) string { return cmp.Diff(a, b, IgnorePositions) }
