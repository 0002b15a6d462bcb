package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// loadedSkill is a skill file read and parsed. src is shared with the
// tree (grammar.ParseShared) and must not be modified.
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
	name, src, err := readSkill(path, stdin)
	if err != nil {
		return nil, err
	}
	// src is only read from here on, so the tree may share it.
	skill, diags := grammar.ParseShared(name, src)
	return &loadedSkill{path: name, src: src, skill: skill, diags: diags}, nil
}

// loadOneShot is loadSkill for parse, lint, fmt and run --dry-run, which
// read files, work on them and exit: the collector is set for the file (gcForFile)
// before it is parsed.
func loadOneShot(path string, stdin io.Reader) (*loadedSkill, error) {
	name, src, err := readSkill(path, stdin)
	if err != nil {
		return nil, err
	}
	gcForFile(len(src))
	skill, diags := grammar.ParseShared(name, src)
	return &loadedSkill{path: name, src: src, skill: skill, diags: diags}, nil
}

// The GOGC parse, lint and fmt run with, unless GOGC is set, while every
// file they read is at most oneShotGCFile bytes.
const (
	oneShotGCPercent = 400
	oneShotGCFile    = 1 << 20
)

// bigFileSeen records that a file over oneShotGCFile was read.
var bigFileSeen bool

// gcForFile sets the collector for a file of size bytes about to be
// parsed. A skill of up to 1 MiB allocates well under 16 MiB while it is
// parsed, linted or printed (4.4 MB for a 1,000-step skill of 0.49 MB,
// 0.8 MB for its check), and
// most of that is the tree, which stays live: at GOGC=400 the heap's first
// goal is 16 MiB, so such a file is done without a collection, whose
// marking costs more CPU than the little garbage it frees, and whose own
// memory more than it saves (lint of that skill: 26.5 → 25.0 MB peak RSS).
// From the first larger file on, the default keeps the peak heap near
// twice the live one.
func gcForFile(size int) {
	if os.Getenv("GOGC") != "" || bigFileSeen {
		return
	}
	if size > oneShotGCFile {
		bigFileSeen = true
		debug.SetGCPercent(100)
		return
	}
	debug.SetGCPercent(oneShotGCPercent)
}

// readSkill reads path ("-" reads stdin) and returns the name it goes by
// in messages with its bytes. A read failure is a usage error.
func readSkill(path string, stdin io.Reader) (string, []byte, error) {
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
		return "", nil, usageErrorf("%v", err)
	}
	return name, src, nil
}

// printDiagnostics writes diagnostics one per line.
func printDiagnostics(w io.Writer, diags ast.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}

// walkSkills calls visit for root when it is a file, or for every skill
// file under root when it is a directory: every *.skill.md, and every
// SKILL.md (an Agent Skills folder) that holds Reelier steps. A SKILL.md
// without steps is an ordinary Agent Skill, left alone: other, when not
// nil, is told about it. Problems reaching a path go to fail, and the walk
// goes on.
func walkSkills(root string, visit, other func(path string), fail func(error)) {
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

// notReplayable is the refusal for a file with no Reelier steps, such as
// an ordinary Agent Skill.
func notReplayable(path string) error {
	return usageErrorf("%s is not a replayable skill: it has no '### Step N — Title' step (an ordinary Agent Skill, instructions for an agent); there is nothing for reelier to replay", path)
}

// isAgentSkillFile reports a file named as an Agent Skill's (SKILL.md),
// which may hold no Reelier steps at all; a *.skill.md is always meant as
// a Reelier skill, so its problems are reported as they are.
func isAgentSkillFile(path string) bool { return filepath.Base(path) == "SKILL.md" }
