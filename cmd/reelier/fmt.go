package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/skillfile"
	"github.com/spf13/cobra"
)

const fmtLong = `Print skills in canonical form, with gofmt's conventions.

With no path, read stdin and write the result to stdout. A directory is
walked for *.skill.md files. By default the formatted text goes to stdout;
-l lists the files whose formatting differs, -w rewrites them in place
(atomically, and never with text that does not parse back), -d prints a
unified diff, --check lists differing files and fails.

-w takes the lock heal write-back takes and formats the file as it is
once it holds it, so a heal written meanwhile is kept; a symbolic link is
followed and its target rewritten (the link stays a link); a read-only
file (no write permission bit) is not rewritten.

Canonical form: the step header uses an em dash; fields come in the order
intent, action, assert…, bind…, effect, one line each; action arguments
are JSON on one line with ", " and ": " separators and their key order kept.
Prose lines inside a step stay above the field they preceded. Preamble,
sections between steps and trailing sections are kept byte for byte.

Exit status: 0 ok; 1 with --check or -d when some file is not canonical;
2 when a file cannot be read or parsed (it is left untouched).

Examples:
  reelier fmt -w skills/
  reelier fmt --check .
  reelier fmt -d weekly.skill.md
  cat weekly.skill.md | reelier fmt`

type fmtOptions struct {
	list, write, diff, check bool
	paths                    []string
}

func newFmtCmd() *cobra.Command {
	var opts fmtOptions
	cmd := &cobra.Command{
		Use:   "fmt [-l] [-w] [-d] [--check] [path…]",
		Short: "Print skills in canonical form",
		Long:  fmtLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return fmtRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.list, "list", "l", false, "list files whose formatting differs from canonical")
	f.BoolVarP(&opts.write, "write", "w", false, "write the result to the file instead of stdout")
	f.BoolVarP(&opts.diff, "diff", "d", false, "print a unified diff instead of the formatted text")
	f.BoolVar(&opts.check, "check", false, "list files that are not canonical and exit 1 if there are any")
	return cmd
}

func fmtRun(cmd *cobra.Command, opts fmtOptions) error {
	f := &formatter{opts: opts, stdin: cmd.InOrStdin(), out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr()}
	if len(opts.paths) == 0 {
		if opts.write {
			return usageErrorf("cannot use -w with standard input")
		}
		f.file("-")
	}
	for _, p := range opts.paths {
		f.walk(p)
	}
	switch {
	case f.badInput:
		return silentExit(exitUsage)
	case f.differs && (opts.check || opts.diff):
		return silentExit(exitFailed)
	}
	return nil
}

type formatter struct {
	opts              fmtOptions
	stdin             io.Reader
	out, errw         io.Writer
	badInput, differs bool
}

func (f *formatter) walk(root string) { walkSkills(root, f.file, nil, f.fail) }

func (f *formatter) fail(err error) {
	fmt.Fprintln(f.errw, "reelier fmt:", err)
	f.badInput = true
}

func (f *formatter) file(path string) {
	l, err := loadOneShot(path, f.stdin)
	if err != nil {
		f.fail(errors.Unwrap(err))
		return
	}
	if l.diags.HasErrors() {
		printDiagnostics(f.errw, l.diags)
		f.badInput = true
		return
	}
	// A file already in canonical form is its own output: comparing the
	// printer's output with it as it is made saves building it (fmt
	// --check on a canonical file). Text identical to the source parsed
	// without errors just now, so only a change needs proving that it
	// parses.
	out := l.src
	changed := !format.Matches(l.skill, l.src)
	if changed {
		out = format.Source(l.skill)
		if _, diags := grammar.Parse(l.path, out); diags.HasErrors() {
			f.fail(fmt.Errorf("%s: internal error: the formatted text does not parse, file left unchanged:\n%v", l.path, diags))
			return
		}
	}
	f.differs = f.differs || changed
	if f.opts.list || f.opts.check {
		if changed {
			fmt.Fprintln(f.out, l.path)
		}
	}
	if f.opts.diff && changed {
		fmt.Fprint(f.out, format.Diff(l.path, l.src, out))
	}
	if f.opts.write && changed {
		f.rewrite(path, l.path)
	}
	if !f.opts.list && !f.opts.check && !f.opts.diff && !f.opts.write {
		f.out.Write(out)
	}
}

// rewrite formats the file at path in place through skillfile.Update: under
// the lock heals take, the file is formatted as it is then, so a heal
// written since it was read is kept. A symbolic link is followed and its
// target rewritten.
func (f *formatter) rewrite(path, name string) {
	_, err := skillfile.Update(path, func(src []byte) ([]byte, error) {
		skill, diags := grammar.Parse(name, src)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s changed while it was being formatted and no longer parses; left as it is:\n%v", name, diags)
		}
		return format.Source(skill), nil
	})
	if err != nil {
		f.fail(err)
	}
}
