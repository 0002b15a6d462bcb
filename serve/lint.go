package serve

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/lint"
)

// LintInput is the input of reelier_lint.
type LintInput struct {
	Path string `json:"path" jsonschema:"a .skill.md file, or a directory whose *.skill.md files are all linted; relative to the working directory"`
}

// LintOutput is what reelier_lint found.
type LintOutput struct {
	// Files counts the files linted.
	Files       int              `json:"files"`
	Errors      int              `json:"errors"`
	Warnings    int              `json:"warnings"`
	Diagnostics []LintDiagnostic `json:"diagnostics"`
}

// LintDiagnostic is one finding, at a 1-based line and a 1-based column
// counted in characters (Unicode code points), as ast.Pos counts.
type LintDiagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Severity string   `json:"severity"`
	Rule     string   `json:"rule"`
	Step     int      `json:"step,omitempty"`
	Message  string   `json:"message"`
	Detail   string   `json:"detail,omitempty"`
	URL      string   `json:"url"`
	Fixes    []string `json:"fixes,omitempty" jsonschema:"titles of the fixes reelier lint --fix can apply"`
}

var toolLint = &mcp.Tool{
	Name:  "reelier_lint",
	Title: "Lint skill files",
	Description: "Check .skill.md files for what would break or weaken a replay before it runs: a variable used before anything binds it, a step that checks nothing, " +
		"a drift-prone array index, a hard-coded date that should be {{today-7d}}, a destructive call labelled read, a secret pasted into arguments, and more. " +
		"Each finding has a position, a rule and, where one exists, the title of a fix `reelier lint --fix` applies. Uses .reelier/lint.toml when the working directory has one.",
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
}

func (s *Server) lint(_ context.Context, _ *mcp.CallToolRequest, in LintInput) (*mcp.CallToolResult, LintOutput, error) {
	root, _, err := within("path", s.work.dir, in.Path, s.work)
	if err != nil {
		return nil, LintOutput{}, err
	}
	driver, err := s.lintDriver()
	if err != nil {
		return nil, LintOutput{}, err
	}
	files, err := skillFiles(root)
	if err != nil {
		return nil, LintOutput{}, fmt.Errorf("path %q: %w", in.Path, err)
	}
	out := LintOutput{Diagnostics: []LintDiagnostic{}}
	for _, p := range files {
		src, err := readIn(s.work, "path", s.display(p), p)
		if err != nil {
			return nil, LintOutput{}, err
		}
		if agentSkillOnly(p, src) && len(files) > 1 {
			continue
		}
		out.Files++
		for _, d := range driver.Run(lint.ParseFile(s.display(p), src)) {
			out.add(d)
		}
	}
	return nil, out, nil
}

func (o *LintOutput) add(d ast.Diagnostic) {
	switch d.Severity {
	case ast.SeverityError:
		o.Errors++
	case ast.SeverityWarning:
		o.Warnings++
	}
	ld := LintDiagnostic{
		File: d.File, Line: int(d.Range.Start.Line), Column: int(d.Range.Start.Column), Severity: d.Severity.String(),
		Rule: d.Code, Step: d.Step, Message: d.Message, Detail: d.Detail, URL: lint.DocsURL + "#" + d.Code,
	}
	for _, f := range d.Fixes {
		ld.Fixes = append(ld.Fixes, f.Title)
	}
	o.Diagnostics = append(o.Diagnostics, ld)
}

// lintDriver configures the linter from the working directory's
// .reelier/lint.toml when there is one.
func (s *Server) lintDriver() (*lint.Driver, error) {
	var base lint.Config
	cfg, _, err := within("the lint configuration", s.work.dir, lint.ConfigPath, s.work)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(cfg); err == nil {
		if base, err = lint.LoadConfig(cfg); err != nil {
			return nil, err
		}
	}
	return lint.New(lint.Config{Base: &base})
}

// skillFiles returns root when it is a file, else every *.skill.md file
// below it in lexical order, leaving out version-control and dependency
// folders. Links to directories are not followed (WalkDir never does), and
// a linked file is read through the working directory's os.Root, which
// refuses one that leads out.
func skillFiles(root string) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{root}, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && skipDir(d.Name()):
			return fs.SkipDir
		case !d.IsDir() && (strings.HasSuffix(d.Name(), ".skill.md") || d.Name() == "SKILL.md"):
			// A SKILL.md may be an ordinary Agent Skill: the reader
			// passes over one without Reelier steps (agentSkillOnly).
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// agentSkillOnly reports a SKILL.md without Reelier steps: an ordinary
// Agent Skill, which a folder walk passes over.
func agentSkillOnly(path string, src []byte) bool {
	return filepath.Base(path) == "SKILL.md" && !grammar.HasStepHeader(src)
}

// skipDir reports whether a folder never holds skills worth reading.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".hg" || name == ".svn"
}
