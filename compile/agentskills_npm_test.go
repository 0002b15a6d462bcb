package compile_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/grammar"
)

// TestSkillsRefValidates holds every compiled skill — each trace in
// testdata/traces and each real recording the truth bench keeps — and the
// examples to an independent Agent Skills validator: skills-ref from npm
// (installed by .ci/run; REELIER_NPM_DIR names the folder). Each skill is
// written as <name>/SKILL.md, as --skills-dir writes it, and validated
// there.
func TestSkillsRefValidates(t *testing.T) {
	npm := os.Getenv("REELIER_NPM_DIR")
	if npm == "" {
		t.Skip("REELIER_NPM_DIR is not set; run `npm ci --prefix .ci/node` and set REELIER_NPM_DIR=$PWD/.ci/node to run this test")
	}
	cli := filepath.Join(npm, "node_modules", "skills-ref", "dist", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("REELIER_NPM_DIR=%s but skills-ref is not installed there: %v", npm, err)
	}
	dir := t.TempDir()
	put := func(name string, src []byte) string {
		p := filepath.Join(dir, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(p)
	}
	var skills []string
	for _, path := range append(traceFiles(t), extraTraces(t)...) {
		x, err := compile.NewFile(path, compile.Options{Source: filepath.Base(path), Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := x.Write(&b); err != nil {
			t.Fatal(err)
		}
		skills = append(skills, put(x.Summary().Name, b.Bytes()))
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*.skill.md"))
	for _, p := range examples {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sk, _ := grammar.Parse(p, src)
		skills = append(skills, put(sk.Name(), src))
	}
	if len(skills) < 40 {
		t.Fatalf("only %d skills to validate", len(skills))
	}
	for _, d := range skills {
		out, err := exec.Command("node", cli, "validate", d).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Valid skill") {
			t.Errorf("skills-ref rejects %s (%v):\n%s", filepath.Base(d), err, out)
		}
	}
}
