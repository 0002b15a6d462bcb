package cli

import (
	"github.com/reelier/reelier/lang/loader"
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
	f := &loader.Fmt{List: opts.list, Write: opts.write, Diff: opts.diff, Check: opts.check,
		Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), BeforeParse: gcForFile}
	if len(opts.paths) == 0 {
		if opts.write {
			return usageErrorf("cannot use -w with standard input")
		}
		f.File("-")
	}
	for _, p := range opts.paths {
		f.Walk(p)
	}
	switch {
	case f.BadInput:
		return silentExit(exitUsage)
	case f.Differs && (opts.check || opts.diff):
		return silentExit(exitFailed)
	}
	return nil
}
