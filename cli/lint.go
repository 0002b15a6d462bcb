package cli

import (
	"slices"
	"strings"

	"github.com/reelier/reelier/lang/lint"
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

Exit status: 0 when no error-severity finding remains; 1 when one does;
2 when a file does not parse (its parse errors are reported like any
finding, and the status is parse's, fmt's and run's for such a file), and
on a usage error: an unknown rule or format, a bad configuration file, or
a path that cannot be read.

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
	if !slices.Contains(lint.Formats, opts.format) {
		return usageErrorf("unknown --format %q (expected %s)", opts.format, strings.Join(lint.Formats, ", "))
	}
	driver, err := lint.NewFromConfig(opts.config, opts.enable, opts.disable)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if len(opts.paths) == 0 {
		opts.paths = []string{"."}
	}
	for _, p := range opts.paths {
		if p == "-" && opts.fix {
			return usageErrorf("cannot use --fix with standard input")
		}
	}
	l := &lint.Session{Driver: driver, Fix: opts.fix, Verbose: opts.verbose, Stdin: cmd.InOrStdin(), Stderr: cmd.ErrOrStderr(), BeforeParse: gcForFile}
	for _, p := range opts.paths {
		l.Walk(p)
	}
	if err := lint.Write(cmd.OutOrStdout(), opts.format, driver, l.Results); err != nil {
		return err
	}
	switch {
	case l.BadInput, l.Unparsed:
		return silentExit(exitUsage)
	case l.Errors:
		return silentExit(exitFailed)
	}
	return nil
}
