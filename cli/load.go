package cli

import (
	"io"
	"os"
	"runtime/debug"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/loader"
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
const stdinName = loader.StdinName

func fromLoader(l *loader.Skill, err error) (*loadedSkill, error) {
	if err != nil {
		return nil, err
	}
	return &loadedSkill{path: l.Path, src: l.Src, skill: l.Skill, diags: l.Diags}, nil
}

// loadSkill reads and parses path ("-" reads stdin).
func loadSkill(path string, stdin io.Reader) (*loadedSkill, error) {
	return fromLoader(loader.Load(path, stdin, nil))
}

// loadOneShot is loadSkill for parse, lint, fmt and run --dry-run, which
// read files, work on them and exit: the collector is set for the file
// (gcForFile) before it is parsed.
func loadOneShot(path string, stdin io.Reader) (*loadedSkill, error) {
	return fromLoader(loader.Load(path, stdin, gcForFile))
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

var (
	readSkill        = loader.Read
	printDiagnostics = loader.PrintDiagnostics
	walkSkills       = loader.Walk
	notReplayable    = loader.NotReplayable
	isAgentSkillFile = loader.IsAgentSkillFile
	expandSkillPaths = loader.Expand
)
