package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/reelier/reelier/redact"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X github.com/reelier/reelier/cli.version=…"; otherwise
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

Two commands are easy to confuse:
  reelier mcp    the RECORDER: it sits in front of your own MCP servers
                 (--wrap) and writes a trace of every call the agent makes
  reelier serve  Reelier's OWN tools (replay, scan, push…) offered to your
                 agent as an MCP server; it wraps nothing

Exit codes (every command; "reelier help exit-status" has each command's):
  0    ok
  1    a check or a step failed, a difference was found, a record was
       rejected, a receipt did not verify
  2    usage error, unreadable file, a skill that does not parse, or a run
       its set-up stopped (missing input, refused write, approval, policy)
  3    a tool or environment error: a server that could not start or
       crashed, a call that timed out
  130  interrupted (Ctrl-C)`

// commandGroups are the command families shown by --help, in order.
var commandGroups = []*cobra.Group{
	{ID: "skills", Title: "Write and check skills (the SKILL.md toolchain):"},
	{ID: "record", Title: "Record what an agent does:"},
	{ID: "replay", Title: "Compile and replay:"},
	{ID: "history", Title: "Skills from agent history, and set-up:"},
	{ID: "share", Title: "Serve and share:"},
}

// commandFamily assigns each command to its family by name, so a command
// file need not know how help is laid out.
var commandFamily = map[string]string{
	"parse": "skills", "fmt": "skills", "lint": "skills", "lsp": "skills", "approve": "skills",
	"mcp": "record", "trace": "record", "policy": "record",
	"mock":    "replay",
	"compile": "replay", "run": "replay", "calibrate": "replay", "bench": "replay", "cost": "replay", "diff": "replay",
	"from-session": "history", "scan": "history", "install": "history", "uninstall": "history", "init": "history",
	"serve": "share", "push": "share", "ledger": "share", "summary": "share", "ci": "share",
	"key": "share", "verify": "share",
}

// commands lists every subcommand: its name (what newCmd().Name() says;
// TestCommandNames checks) and its constructor.
var commands = []struct {
	name   string
	newCmd func() *cobra.Command
}{
	{"parse", newParseCmd},
	{"fmt", newFmtCmd},
	{"lint", newLintCmd},
	{"lsp", newLSPCmd},
	{"approve", newApproveCmd},
	{"run", newRunCmd},
	{"calibrate", newCalibrateCmd},
	{"bench", newBenchCmd},
	{"cost", newCostCmd},
	{"diff", newDiffCmd},
	{"compile", newCompileCmd},
	{"mcp", newMCPCmd},
	{"mock", newMockCmd},
	{"trace", newTraceCmd},
	{"push", newPushCmd},
	{"ledger", newLedgerCmd},
	{"from-session", newFromSessionCmd},
	{"scan", newScanCmd},
	{"install", newInstallCmd},
	{"uninstall", newUninstallCmd},
	{"init", newInitCmd},
	{"serve", newServeCmd},
	{"summary", newSummaryCmd},
	{"ci", newCICmd},
	{"key", newKeyCmd},
	{"verify", newVerifyCmd},
	{"policy", newPolicyCmd},
}

// newRootCmd builds the command line with every subcommand.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newRootCmdWith(stdin, stdout, stderr, func(string) bool { return true })
}

// newRootCmdWith builds the command line with the subcommands want names.
func newRootCmdWith(stdin io.Reader, stdout, stderr io.Writer, want func(name string) bool) *cobra.Command {
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
		return &exitError{Code: exitUsage, Err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	used := map[string]bool{}
	for _, sub := range commands {
		if !want(sub.name) {
			continue
		}
		c := sub.newCmd()
		withExitRow(c)
		c.GroupID = commandFamily[c.Name()]
		used[c.GroupID] = true
		root.AddCommand(c)
	}
	root.AddCommand(newExitStatusTopic())
	for _, g := range commandGroups {
		if used[g.ID] {
			root.AddGroup(g)
		}
	}
	return root
}

// neededCommands says which subcommands a command line can reach, so that
// a process builds only those (each costs its flag set and, for some,
// package state): the one the line names, none for a bare --version, and
// every one otherwise (help, completion, an unknown or mistyped command,
// anything unusual).
//
// The command a line names is the one cobra's own Find finds on a root
// that has only empty stand-ins for the subcommands and no flags yet (its
// --help and --version are added later): the first argument that is not a
// flag, where a flag of the form --name or -n (no '=') takes the next
// argument as its value.
func neededCommands(args []string) func(name string) bool {
	all := func(string) bool { return true }
	onlyVersion := len(args) > 0
	for _, s := range args {
		if s != "--version" && s != "-v" {
			onlyVersion = false
		}
	}
	if onlyVersion {
		return func(string) bool { return false }
	}
	probe := &cobra.Command{Use: "reelier"}
	for _, sub := range commands {
		probe.AddCommand(&cobra.Command{Use: sub.name, Run: func(*cobra.Command, []string) {}})
	}
	found, _, err := probe.Find(args)
	if err != nil || found == probe {
		return all
	}
	name := found.Name()
	return func(n string) bool { return n == name }
}

// Main runs the reelier command line and returns the process exit code.
func Main() int {
	mayHandOff = true
	seatbeltMain()
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The values REELIER_REDACT names are the process's secrets from the
	// start: every redactor blanks them (trace.RegisterSecret).
	redact.RegisterEnvSecrets(os.Getenv, os.LookupEnv)
	return execute(newRootCmdWith(stdin, stdout, stderr, neededCommands(args)), args, stdin, stdout, stderr)
}

// execute runs args on root and returns the exit code.
func execute(root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintln(stderr, "reelier:", err)
		}
		if strings.HasPrefix(err.Error(), "unknown command") {
			fmt.Fprint(stderr, unknownCommandHint(newRootCmd(stdin, stdout, stderr)))
		}
	}
	return exitCode(err)
}

// unknownCommandHint lists the commands and spells out the mcp/serve split,
// so a mistyped command is redirected rather than left to guess.
func unknownCommandHint(root *cobra.Command) string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" {
			names = append(names, c.Name())
		}
	}
	return "Usage: reelier <" + strings.Join(names, "|") + "> …\n" +
		"  reelier mcp    records: runs in front of YOUR MCP servers (--wrap) and writes traces\n" +
		"  reelier serve  offers Reelier's OWN tools (replay, scan, push…) to an agent; wraps nothing\n" +
		"Run 'reelier --help' for every command.\n"
}
