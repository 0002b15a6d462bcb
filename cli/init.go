package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/record/agentcfg"
	"github.com/reelier/reelier/record/demo"
	"github.com/reelier/reelier/replay/provenance"
	"github.com/reelier/reelier/replay/receipt"
	"github.com/reelier/reelier/replay/runlog"
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
		return &exitError{Code: exitFailed, Err: fmt.Errorf("recording the demo: %w", err)}
	}
	fmt.Fprintf(w, "Recorded %s\n\n", tracePath)
	skillPath, err := demo.Compile(w, tracePath, opts.dir)
	if err != nil {
		return err
	}
	res, err := demo.Replay(cmd.Context(), skillPath, server, versionString(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nYour receipt:")
	receipt.Text(w, skillPath, res, receipt.Style{})
	res.Record.Provenance = provenance.FromEnv(os.Getenv)
	if _, err := runlog.Append(filepath.Join(opts.dir, runlog.DefaultDir), &res.Record); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "reelier: the run record could not be written: %v\n", err)
	}
	me := whoAmI()
	runsDir := []string{}
	if filepath.Clean(opts.dir) != "." {
		// --dir keeps the run records there too; the hints keep them there.
		runsDir = []string{"--runs-dir", filepath.Join(opts.dir, runlog.DefaultDir)}
	}
	fmt.Fprintln(w, "\nNext steps:")
	wrap := me.command("init", "--"+demoServerFlag)
	fmt.Fprintf(w, "  %s   # replay again\n", me.command(append(append([]string{"run", skillPath}, runsDir...), "--wrap", wrap)...))
	fmt.Fprintf(w, "  %s   # what a push to your receipt ledger would send (opt-in: REELIER_CLOUD_URL, REELIER_CLOUD_KEY)\n", me.command(append(append([]string{"push", "--dry-run"}, runsDir...), skillPath)...))
	if home, err := os.UserHomeDir(); err == nil {
		if fi, err := os.Stat(filepath.Join(home, ".claude", "projects")); err == nil && fi.IsDir() {
			fmt.Fprintf(w, "  %s   # find replayable workflows in your agent's history\n", me.command("scan"))
		}
	}
	offerInstall(cmd, me, opts.yes)
	if !res.Record.Passed {
		return silentExit(exitFailed)
	}
	return nil
}

// modulePath is the module reelier is built from; cmdPackage its main
// package.
const (
	modulePath = "github.com/reelier/reelier"
	cmdPackage = modulePath + "/cmd/reelier"
)

// lastingReelier is where a printed command puts a lasting reelier when
// this one is a temporary `go run` build: a shell word, expanded when the
// command runs.
const lastingReelier = `"$(go env GOPATH)/bin/reelier"`

// self is how a printed command names this reelier, so that the command
// runs as printed from the directory reelier was started in.
type self struct {
	// argv starts every command: ["reelier"] when PATH finds this very
	// binary; under `go run`, ["go", "run", "./cmd/reelier"] (the path
	// from here to the module's main package) or the package path; the
	// binary's absolute path otherwise.
	argv []string
	// temporary is set for a `go run` build: it is deleted when it exits,
	// so nothing that outlives it (an agent's config) may name it.
	temporary bool
	// build, when temporary, is the command that builds a lasting reelier
	// at lastingReelier.
	build string
}

// command is the shell command line running this reelier with args.
func (s self) command(args ...string) string {
	return agentcfg.ShellJoin(append(slices.Clone(s.argv), args...))
}

// lasting is how a command that outlives this process (an agent config,
// `reelier install`) names reelier: this binary, or, for a temporary
// build, the one s.build makes.
func (s self) lasting(args ...string) string {
	if !s.temporary {
		return s.command(args...)
	}
	return strings.Join(append([]string{lastingReelier}, agentcfg.ShellJoin(args)), " ")
}

// whoAmI finds how to name the running reelier.
func whoAmI() self {
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return findSelf(exe, cwd, exec.LookPath, version)
}

// findSelf is whoAmI with its inputs: the executable, the working
// directory, PATH's lookup and the main module's version.
func findSelf(exe, cwd string, lookPath func(string) (string, error), version string) self {
	if found, err := lookPath("reelier"); err == nil {
		a, errA := os.Stat(found)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return self{argv: []string{"reelier"}}
		}
	}
	if exe != "" && !strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return self{argv: []string{exe}}
	}
	// A `go run` build (or no executable at all): run the source again.
	pkg := cmdPackage
	if version != "" && version != "(devel)" {
		pkg += "@" + version
	}
	if dir, ok := moduleDir(cwd); ok {
		if rel, err := filepath.Rel(cwd, filepath.Join(dir, "cmd", "reelier")); err == nil {
			pkg = filepath.ToSlash(rel)
			if !strings.HasPrefix(pkg, "../") {
				pkg = "./" + pkg
			}
		}
	}
	s := self{argv: []string{"go", "run", pkg}, temporary: true}
	if strings.Contains(pkg, "@") {
		s.build = `CGO_ENABLED=0 GOBIN="$(go env GOPATH)/bin" ` + agentcfg.ShellJoin([]string{"go", "install", "-trimpath", pkg})
	} else {
		s.build = "CGO_ENABLED=0 go build -trimpath -o " + lastingReelier + " " + agentcfg.ShellJoin([]string{pkg})
	}
	return s
}

// moduleDir finds the root of reelier's own module at or above dir: the
// nearest go.mod, when it declares modulePath.
func moduleDir(dir string) (string, bool) {
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
					return dir, strings.Trim(f[1], `"`) == modulePath
				}
			}
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// offerInstall finds the agent's MCP config and offers to front its
// local servers with the recorder: asked on a terminal (default no),
// printed as commands otherwise or with --yes. A temporary `go run`
// build is never written into a config: its commands build a lasting
// reelier first.
func offerInstall(cmd *cobra.Command, me self, yes bool) {
	w := cmd.OutOrStdout()
	candidates, err := agentcfg.AgentConfigs("claude")
	if err != nil {
		return
	}
	fmt.Fprintln(w)
	cfg, err := agentcfg.Detect(candidates)
	if err != nil {
		fmt.Fprintf(w, "Your agent: %v.\n", err)
		if me.temporary {
			fmt.Fprintf(w, "To record your own MCP server, build a lasting reelier (this one is a temporary `go run` build) and front the server with it:\n  %s\n", me.build)
		} else {
			fmt.Fprintln(w, "To record your own MCP server, front it with the recorder:")
		}
		fmt.Fprintf(w, "  claude mcp add <name> -- %s --wrap \"<server command>\"\n", me.lasting("mcp"))
		return
	}
	exe, exeErr := agentcfg.ReelierPath() // a `go run` build cannot be installed
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
		fmt.Fprintf(w, "Your agent: %s has no local MCP server left to wrap (%s).\n", cfg.Path, words.Count(len(plan.Changes), "server"))
		return
	}
	fmt.Fprintf(w, "Your agent: %s has %s the recorder can front. Recording through it is lossless and keeps tool annotations; compiling from history (reelier scan) is a reconstruction.\n", cfg.Path, words.Count(n, "local MCP server"))
	if me.temporary {
		fmt.Fprintf(w, "To front them, build a lasting reelier (this one is a temporary `go run` build); the config is backed up first and %s reverts:\n  %s\n", me.lasting("uninstall"), me.build)
		fmt.Fprintf(w, "  %s   # see the change\n  %s\n", me.lasting("install", "--dry-run"), me.lasting("install"))
		return
	}
	if yes || exeErr != nil || !isTerminal(cmd.InOrStdin()) {
		fmt.Fprintf(w, "To front them (the config is backed up first; %s reverts):\n  %s   # see the change\n  %s\n", me.command("uninstall"), me.command("install", "--dry-run"), me.command("install"))
		return
	}
	fmt.Fprintf(w, "Front them now? The config is backed up first. [y/N] ")
	answer, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		if err := plan.ApplyAndReport(w); err != nil {
			fmt.Fprintf(w, "%v\n", err)
		}
	default:
		fmt.Fprintf(w, "Left it unchanged. Run %s whenever you like.\n", me.command("install"))
	}
}
