package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/agentcfg"
	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/format"
	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/demo"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/httptool"
	"github.com/reelier/reelier/runtime/receipt"
	"github.com/reelier/reelier/runtime/runlog"
	"github.com/reelier/reelier/trace"
	"github.com/spf13/cobra"
)

const initLong = `The guided first run, fully offline: record a real two-step workflow,
compile it, replay it, and get a receipt — in a few seconds, with no
network, no account and no LLM.

The workflow runs against a demo package registry built into this binary
(an MCP server it starts as a child process) and is recorded through the
same recording proxy as ` + "`reelier mcp`" + `: look a package up, then fetch its
latest release with the release id the first call returned — a dataflow
the compiler turns into a bind. The trace goes to .reelier/traces, the
skill to skills/, the run record to .reelier/runs (under --dir, which is
the current directory unless given).

Then it looks for your Claude Code MCP config (.mcp.json, then
~/.claude.json) and offers to front your own servers with the recorder,
as ` + "`reelier install`" + ` does (backup first; ` + "`reelier uninstall`" + ` reverts). On a
terminal it asks, and the answer defaults to no; with --yes, or without a
terminal, it prints the command instead and never writes the config.

Exit status: 0 when the replay passed; 1 when recording or replay failed;
2 for usage errors.

Examples:
  reelier init
  reelier init --yes
  reelier init --yes --dir "$(mktemp -d)"   # leave the current directory alone`

// demoServerFlag is init's hidden flag that serves the demo registry on
// stdio: the command the recorder and the replay start as a child.
const demoServerFlag = "demo-server"

type initOptions struct {
	yes        bool
	demoServer bool
	dir        string
}

func newInitCmd() *cobra.Command {
	var opts initOptions
	cmd := &cobra.Command{
		Use:   "init [--yes]",
		Short: "First run: record, compile and replay a demo offline; get a receipt",
		Long:  initLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.demoServer {
				return demo.Serve(cmd.Context(), os.Stdin, os.Stdout)
			}
			return initRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.yes, "yes", false, "ask nothing: print the install command instead of offering it")
	f.StringVar(&opts.dir, "dir", ".", "write the trace, the skill and the run record under `DIR`")
	f.BoolVar(&opts.demoServer, demoServerFlag, false, "serve the demo registry over MCP on stdio")
	f.MarkHidden(demoServerFlag)
	return cmd
}

func initRun(cmd *cobra.Command, opts initOptions) error {
	w := cmd.OutOrStdout()
	exe, err := os.Executable()
	if err != nil {
		return usageErrorf("cannot tell where the reelier binary is: %v", err)
	}
	server := agentcfg.ShellJoin([]string{exe, "init", "--" + demoServerFlag})
	fmt.Fprintln(w, "Recording a two-step workflow against the demo registry built into reelier, through the recorder (offline):")
	for i, s := range demo.Steps {
		fmt.Fprintf(w, "  %d. %s\n", i+1, s)
	}
	tracePath, err := demo.Record(cmd.Context(), demo.RecordOptions{Server: server, TraceDir: filepath.Join(opts.dir, trace.DefaultDir), Version: versionString(), Stderr: cmd.ErrOrStderr()})
	if err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("recording the demo: %w", err)}
	}
	fmt.Fprintf(w, "Recorded %s\n\n", tracePath)
	skillPath, err := compileDemo(w, tracePath, opts.dir)
	if err != nil {
		return err
	}
	res, err := replayDemo(cmd.Context(), skillPath, server, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nYour receipt:")
	receipt.Text(w, skillPath, res, receipt.Style{})
	if _, err := runlog.Append(filepath.Join(opts.dir, runlog.DefaultDir), &res.Record); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "reelier: the run record could not be written: %v\n", err)
	}
	fmt.Fprintln(w, "\nNext steps:")
	fmt.Fprintf(w, "  reelier run %s --wrap %s   # replay again\n", skillPath, agentcfg.ShellJoin([]string{displayCommand(exe) + " init --" + demoServerFlag}))
	fmt.Fprintf(w, "  reelier push %s   # sync receipts (opt-in)\n", skillPath)
	fmt.Fprintln(w, "  reelier scan   # find replayable workflows in your agent's history")
	offerInstall(cmd, opts.yes)
	if !res.Record.Passed {
		return silentExit(exitFailed)
	}
	return nil
}

// compileDemo compiles the recorded trace to <dir>/skills/<trace
// file>.skill.md and prints the compiler's summary.
func compileDemo(w io.Writer, tracePath, dir string) (string, error) {
	tr, err := trace.Load(tracePath)
	if err != nil {
		return "", &exitError{code: exitFailed, err: err}
	}
	out, err := compile.Compile(tr, compile.Options{Source: filepath.Base(tracePath)})
	if err != nil {
		return "", &exitError{code: exitFailed, err: err}
	}
	skillPath := filepath.Join(dir, "skills", strings.TrimSuffix(filepath.Base(tracePath), ".jsonl")+".skill.md")
	if err := checkOverwrite(skillPath, false); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(skillPath), 0o755); err != nil {
		return "", usageErrorf("%v", err)
	}
	if err := atomicfile.Write(skillPath, format.Source(out.Skill), 0o644); err != nil {
		return "", usageErrorf("%v", err)
	}
	out.Summary.Output = skillPath
	return skillPath, out.Summary.WriteText(w)
}

// replayDemo replays the skill as written on disk at Level 0, with the
// demo registry started again as its MCP downstream.
func replayDemo(ctx context.Context, skillPath, server string, stderr io.Writer) (*runtime.Result, error) {
	src, err := os.ReadFile(skillPath)
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	skill, diags := grammar.Parse(skillPath, src)
	if diags.HasErrors() {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("the compiled skill does not parse: %v", diags[0])}
	}
	router, err := mcpx.Start(ctx, []string{server}, mcpx.Options{Stderr: stderr, Version: versionString()})
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	defer router.Close()
	tools := runtime.Registry{}
	httptool.Register(tools, nil)
	router.Register(tools, stderr)
	return runtime.Run(ctx, skill, runtime.Options{Tools: tools}), nil
}

// displayCommand is how to name the reelier binary in a suggested
// command: "reelier" when that is what PATH finds, its path otherwise.
func displayCommand(exe string) string {
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "reelier"
	}
	found, err := exec.LookPath("reelier")
	if err != nil {
		return exe
	}
	a, errA := os.Stat(found)
	b, errB := os.Stat(exe)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return "reelier"
	}
	return exe
}

// offerInstall finds the agent's MCP config and offers to front its
// local servers with the recorder: asked on a terminal (default no),
// printed as a command otherwise or with --yes.
func offerInstall(cmd *cobra.Command, yes bool) {
	w := cmd.OutOrStdout()
	candidates, err := agentConfigs("claude")
	if err != nil {
		return
	}
	fmt.Fprintln(w)
	cfg, err := agentcfg.Detect(candidates)
	if err != nil {
		fmt.Fprintf(w, "Your agent: %v.\nTo record your own MCP server, front it with the recorder:\n  claude mcp add <name> -- reelier mcp --wrap \"<server command>\"\n", err)
		return
	}
	exe, exeErr := reelierPath() // a `go run` build cannot be installed
	if exeErr != nil {
		exe = "reelier"
	}
	plan, err := agentcfg.PlanInstall(cfg, exe)
	if err != nil {
		fmt.Fprintf(w, "Your agent: %s could not be read (%v); it was left alone.\n", cfg.Path, err)
		return
	}
	n := plan.Wraps()
	if n == 0 {
		fmt.Fprintf(w, "Your agent: %s has no local MCP server left to wrap (%s).\n", cfg.Path, pluralCount(len(plan.Changes), "server"))
		return
	}
	fmt.Fprintf(w, "Your agent: %s has %s the recorder can front. Recording through it is lossless and keeps tool annotations; compiling from history (reelier scan) is a reconstruction.\n", cfg.Path, pluralCount(n, "local MCP server"))
	if yes || exeErr != nil || !isTerminal(cmd.InOrStdin()) {
		fmt.Fprintln(w, "To front them (the config is backed up first; reelier uninstall reverts):\n  reelier install --dry-run   # see the change\n  reelier install")
		return
	}
	fmt.Fprintf(w, "Front them now? The config is backed up first. [y/N] ")
	answer, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		if err := applyInstall(w, plan); err != nil {
			fmt.Fprintf(w, "%v\n", err)
		}
	default:
		fmt.Fprintln(w, "Left it unchanged. Run reelier install whenever you like.")
	}
}
