package main

import (
	"fmt"
	"io"
	"os"

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
