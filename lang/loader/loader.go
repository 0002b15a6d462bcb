// Package loader reads skill files and finds them under folders: what
// every command that takes SKILL… arguments (run, parse, lint, fmt,
// compile, push, ci …) does before its own work. A read failure or a
// folder with nothing to read is a usage error (exit 2).
package loader

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// Skill is a skill file read and parsed. Src is shared with the tree
// (grammar.ParseShared) and must not be modified.
type Skill struct {
	Path  string
	Src   []byte
	Skill *ast.Skill
	Diags ast.Diagnostics
}

// StdinName is how a skill read from standard input is named.
const StdinName = "<standard input>"

// Load reads and parses path ("-" reads stdin). A read failure is a usage
// error; parse diagnostics are returned for the caller to judge. before,
// when not nil, is told the file's size before it is parsed.
func Load(path string, stdin io.Reader, before func(size int)) (*Skill, error) {
	name, src, err := Read(path, stdin)
	if err != nil {
		return nil, err
	}
	if before != nil {
		before(len(src))
	}
	// src is only read from here on, so the tree may share it.
	skill, diags := grammar.ParseShared(name, src)
	return &Skill{Path: name, Src: src, Skill: skill, Diags: diags}, nil
}

// Read reads path ("-" reads stdin) and returns the name it goes by in
// messages with its bytes. A read failure is a usage error.
func Read(path string, stdin io.Reader) (string, []byte, error) {
	var src []byte
	var err error
	name := path
	if path == "-" {
		name = StdinName
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return "", nil, exitstatus.Usagef("%v", err)
	}
	return name, src, nil
}

// PrintDiagnostics writes diagnostics one per line.
func PrintDiagnostics(w io.Writer, diags ast.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}

// FirstError is the first error among diags, rendered.
func FirstError(diags ast.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == ast.SeverityError {
			return d.String()
		}
	}
	return ""
}

// Walk calls visit for root when it is a file, or for every skill file
// under root when it is a directory: every *.skill.md, and every SKILL.md
// (an Agent Skills folder) that holds Reelier steps. A SKILL.md without
// steps is an ordinary Agent Skill, left alone: other, when not nil, is
// told about it. Problems reaching a path go to fail, and the walk goes on.
func Walk(root string, visit, other func(path string), fail func(error)) {
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
		switch {
		case d.IsDir():
		case strings.HasSuffix(d.Name(), ".skill.md"):
			visit(path)
		case d.Name() == "SKILL.md":
			src, err := os.ReadFile(path)
			switch {
			case err != nil:
				fail(err)
			case grammar.HasStepHeader(src):
				visit(path)
			case other != nil:
				other(path)
			}
		}
		return nil
	})
	if err != nil {
		fail(err)
	}
}

// Expand replaces each folder among paths by the skills under it (every
// *.skill.md, and every SKILL.md with Reelier steps), in walk order; a
// folder with none is a usage error.
func Expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if p == "-" || err != nil || !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		var walkErr error
		Walk(p, func(path string) { found = append(found, path) }, nil, func(err error) {
			if walkErr == nil {
				walkErr = err
			}
		})
		if walkErr != nil {
			return nil, exitstatus.Usagef("%v", walkErr)
		}
		if len(found) == 0 {
			return nil, exitstatus.Usagef("%s holds no skill to replay (no *.skill.md, and no SKILL.md with Reelier steps)", p)
		}
		out = append(out, found...)
	}
	return out, nil
}

// NotReplayable is the refusal for a file with no Reelier steps, such as
// an ordinary Agent Skill.
func NotReplayable(path string) error {
	return exitstatus.Usagef("%s is not a replayable skill: it has no '### Step N — Title' step (an ordinary Agent Skill, instructions for an agent); there is nothing for reelier to replay", path)
}

// IsAgentSkillFile reports a file named as an Agent Skill's (SKILL.md),
// which may hold no Reelier steps at all; a *.skill.md is always meant as
// a Reelier skill, so its problems are reported as they are.
func IsAgentSkillFile(path string) bool { return filepath.Base(path) == "SKILL.md" }
