package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/lang/lint"
	"github.com/reelier/reelier/lang/skillfile"
	"github.com/spf13/cobra"
)

const lintLong = `Report what is likely to break a skill's replay before it runs: a variable
used before any step binds it, a step that checks nothing, a drifting
array index, a date that should move with the run, a destructive step
labelled read, a secret pasted into the arguments, and more. Every rule is
described, with an example, in docs/lint.md.

With no path, the current directory is searched for *.skill.md files; a
directory is walked the same way; "-" reads standard input.

Output (--format):
  text    path:line:col: severity: step N: message [rule], sorted (default)
  json    {"diagnostics": [...]} with ranges, rules and suggested fixes
  sarif   SARIF 2.1.0, for code-scanning upload
  github  workflow commands that annotate a pull request in GitHub Actions

--fix applies the suggested fixes, prints the file in canonical form and
writes it atomically; it repeats until nothing is left to fix, so running
it twice changes nothing, and it never writes a file that does not parse.
It writes under the lock heal write-back takes, fixing the file as it is
once it holds it (a heal written meanwhile is kept); a symbolic link is
followed and its target rewritten; a read-only file is not rewritten.
The findings printed are those that remain.

Rules are chosen with --enable and --disable (repeatable or
comma-separated; "all" stands for every rule, and a named rule beats
"all") and with .reelier/lint.toml in the current directory or a parent,
or the file named by --config; the flags win. A finding is silenced by
<!-- reelier:ignore RULE --> on the line before it.

Exit status: 0 when no error-severity finding remains; 1 when one does
(parse errors included); 2 on a usage error: an unknown rule or format, a
bad configuration file, or a path that cannot be read.

Examples:
  reelier lint
  reelier lint skills/ --format github
  reelier lint --fix weekly.skill.md
  reelier lint --disable all --enable secret_literal,unbound_variable .
  reelier lint --format sarif skills/ > reelier.sarif`

type lintOptions struct {
	paths           []string
	fix             bool
	verbose         bool
	format          string
	enable, disable []string
	config          string
}

func newLintCmd() *cobra.Command {
	var opts lintOptions
	cmd := &cobra.Command{
		Use:   "lint [path…] [--fix] [--format text|json|sarif|github]",
		Short: "Find problems in skills before they run, and fix them",
		Long:  lintLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return lintRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.fix, "fix", false, "apply suggested fixes and rewrite the files in canonical form")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "also list the SKILL.md files a folder walk passed over because they have no Reelier steps")
	f.StringVar(&opts.format, "format", lint.FormatText, "output format: "+strings.Join(lint.Formats, ", "))
	f.StringSliceVar(&opts.enable, "enable", nil, "run this rule (repeatable; \"all\" for every rule)")
	f.StringSliceVar(&opts.disable, "disable", nil, "do not run this rule (repeatable; \"all\" for every rule)")
	f.StringVar(&opts.config, "config", "", "lint configuration file (default: the nearest "+lint.ConfigPath+")")
	return cmd
}

func lintRun(cmd *cobra.Command, opts lintOptions) error {
	if !isLintFormat(opts.format) {
		return usageErrorf("unknown --format %q (expected %s)", opts.format, strings.Join(lint.Formats, ", "))
	}
	driver, err := lintDriver(opts)
	if err != nil {
		return err
	}
	if len(opts.paths) == 0 {
		opts.paths = []string{"."}
	}
	for _, p := range opts.paths {
		if p == "-" && opts.fix {
			return usageErrorf("cannot use --fix with standard input")
		}
	}
	l := &lintSession{opts: opts, driver: driver, stdin: cmd.InOrStdin(), errw: cmd.ErrOrStderr()}
	for _, p := range opts.paths {
		l.walk(p)
	}
	if err := lint.Write(cmd.OutOrStdout(), opts.format, driver, l.results); err != nil {
		return err
	}
	switch {
	case l.badInput:
		return silentExit(exitUsage)
	case l.errors:
		return silentExit(exitFailed)
	}
	return nil
}

func isLintFormat(f string) bool {
	for _, v := range lint.Formats {
		if f == v {
			return true
		}
	}
	return false
}

// lintDriver builds the driver from the configuration file (named or
// found) under the command-line flags.
func lintDriver(opts lintOptions) (*lint.Driver, error) {
	path := opts.config
	if path == "" {
		path = lint.FindConfig(".")
	}
	var base lint.Config
	if path != "" {
		var err error
		if base, err = lint.LoadConfig(path); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	d, err := lint.New(lint.Config{Enable: opts.enable, Disable: opts.disable, Base: &base})
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return d, nil
}

// lintSession lints the files of one command run.
type lintSession struct {
	opts     lintOptions
	driver   *lint.Driver
	stdin    io.Reader
	errw     io.Writer
	results  []lint.Result
	badInput bool // a path could not be read or written
	errors   bool // an error-severity finding remains
}

// walk lints a file, or every *.skill.md file under a directory.
func (l *lintSession) walk(root string) {
	if root == "-" {
		l.file(root)
		return
	}
	walkSkills(root, l.file, l.other, l.fail)
}

// other notes, with -v, an Agent Skill the walk passed over.
func (l *lintSession) other(path string) {
	if l.opts.verbose {
		fmt.Fprintf(l.errw, "%s: not a replayable skill (no Reelier steps), left alone\n", path)
	}
}

func (l *lintSession) fail(err error) {
	fmt.Fprintln(l.errw, "reelier lint:", err)
	l.badInput = true
}

func (l *lintSession) file(path string) {
	ls, err := loadOneShot(path, l.stdin)
	if err != nil {
		l.fail(errors.Unwrap(err))
		return
	}
	f := &lint.File{Name: ls.path, Src: ls.src, Skill: ls.skill, Diags: ls.diags}
	res := lint.Result{File: f.Name}
	if l.opts.fix {
		fixed := l.driver.Fix(f)
		if fixed.Changed() {
			var err error
			if fixed, err = l.rewrite(path, f, fixed); err != nil {
				l.fail(err)
				return
			}
		}
		if fixed.Changed() {
			fixes := "fixes"
			if fixed.Applied == 1 {
				fixes = "fix"
			}
			fmt.Fprintf(l.errw, "%s: applied %d %s\n", f.Name, fixed.Applied, fixes)
		}
		res.Diagnostics = fixed.Diagnostics
	} else {
		res.Diagnostics = l.driver.Run(f)
	}
	l.errors = l.errors || res.Diagnostics.HasErrors()
	l.results = append(l.results, res)
}

// rewrite writes fixed, the fixes of the file read as f, through
// skillfile.Update: under the lock heals take, the file is read again and,
// when it is no longer what f holds (a heal or a format landed meanwhile),
// parsed and fixed anew, so nothing written since is lost. It returns the
// fixes of the bytes it wrote from, with their remaining findings; none
// applied when another writer had already fixed the file.
func (l *lintSession) rewrite(path string, f *lint.File, fixed *lint.FixResult) (*lint.FixResult, error) {
	var out *lint.FixResult
	_, err := skillfile.Update(path, func(src []byte) ([]byte, error) {
		out = fixed
		if !bytes.Equal(src, f.Src) {
			out = l.driver.Fix(lint.ParseFile(f.Name, src))
		}
		return out.Src, nil
	})
	return out, err
}
