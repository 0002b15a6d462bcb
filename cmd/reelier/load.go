package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
)

// loadedSkill is a skill file read and parsed.
type loadedSkill struct {
	path  string
	src   []byte
	skill *ast.Skill
	diags ast.Diagnostics
}

// stdinName is how a skill read from standard input is named.
const stdinName = "<standard input>"

// loadSkill reads and parses path ("-" reads stdin). A read failure is a
// usage error; parse diagnostics are returned for the caller to judge.
func loadSkill(path string, stdin io.Reader) (*loadedSkill, error) {
	var src []byte
	var err error
	name := path
	if path == "-" {
		name = stdinName
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	skill, diags := grammar.Parse(name, src)
	return &loadedSkill{path: name, src: src, skill: skill, diags: diags}, nil
}

// printDiagnostics writes diagnostics one per line.
func printDiagnostics(w io.Writer, diags ast.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}

// walkSkills calls visit for root when it is a file, or for every
// *.skill.md file under root when it is a directory; problems reaching a
// path go to fail, and the walk goes on.
func walkSkills(root string, visit func(path string), fail func(error)) {
	info, err := os.Stat(root)
	if err != nil {
		fail(err)
		return
	}
	if !info.IsDir() {
		visit(root)
		return
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			fail(err)
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".skill.md") {
			visit(path)
		}
		return nil
	})
	if err != nil {
		fail(err)
	}
}
