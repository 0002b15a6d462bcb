package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// it comes from the module's build information.
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
			v = info.Main.Version
		}
	}
	return v
}

const rootLong = `Reelier turns what an AI agent did through its MCP tools into a skill
you can read, edit and replay: the same tool calls, every result checked,
no LLM in the loop — and a receipt that never claims more than it checked.

Command families:
  Write and check skills (SKILL.md toolchain)
    parse        parse a skill and print its structure or its errors
    fmt          print skills in canonical form (gofmt conventions)

  Record (not in this build yet)
    mcp          the recorder: sits IN FRONT OF your MCP servers (--wrap)
                 and writes a trace of every call the agent makes
    trace        pretty-print a trace file

  Compile and replay (not in this build yet)
    compile      turn a trace into a SKILL.md, deterministically
    run          replay a skill at Level 0 (no LLM) and print a receipt
    bench        summarise a skill's run history

  Serve and share (not in this build yet)
    serve        Reelier's OWN tools (replay, scan, push…) as an MCP server
                 for your agent; unlike mcp, it wraps nothing
    push         send run records to a receipt ledger

Exit codes: 0 ok; 1 a check failed or a difference was found;
2 usage error or unparseable input.`

// commands lists the constructors of every subcommand.
var commands = []func() *cobra.Command{
	newParseCmd,
	newFmtCmd,
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "reelier",
		Short:         "Record, compile and replay agent tool calls as checked skills",
		Long:          rootLong,
		Version:       versionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("reelier {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	for _, newCmd := range commands {
		root.AddCommand(newCmd())
	}
	return root
}

// Main runs the reelier command line and returns the process exit code.
func Main() int {
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) || ee.err != nil {
			fmt.Fprintln(stderr, "reelier:", err)
		}
	}
	return exitCode(err)
}
