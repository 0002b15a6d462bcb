package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/record/agentcfg"
	"github.com/spf13/cobra"
)

const installLong = `Front every local MCP server your agent uses with the Reelier recorder,
in place, so recording a workflow is one phrase away: afterwards, tell your
agent "record this", do the work, and "done".

The config is the project's .mcp.json if it exists, otherwise your
~/.claude.json (its top-level servers and every project's). Each local
server ({"command", "args"}) is rewritten to run
  <this reelier> mcp --wrap "<its original command line>"
under the same name, with its env and every other field kept; nothing
else in the file changes. Remote (url) servers are skipped and listed.
Servers already fronted — by this command, or as
"npx -y reelier mcp --wrap …" — are left alone, so a second install
changes nothing and writes no backup.

Before anything is written the config is copied byte for byte to
<config>.backup-<timestamp>; without that backup nothing is changed. A
config that is not valid JSON is refused with the place of the error.
--dry-run prints the change as a diff and writes nothing. Restart your
agent afterwards. ` + "`reelier uninstall`" + ` puts the newest backup back.

Exit status: 0 when the config was rewritten or needed nothing; 1 when
there is no config, or it could not be written (it is then unchanged); 2
for usage errors and a config that is not valid JSON.

Examples:
  reelier install --dry-run
  reelier install
  reelier uninstall`

const uninstallLong = `Undo ` + "`reelier install`" + `: restore the newest backup it wrote
(<config>.backup-<timestamp>) of the project's .mcp.json or, when that has
none, of ~/.claude.json, byte for byte. The backup is kept. With no
backup, nothing is guessed: the command fails and names what it checked.

Exit status: 0 when a backup was restored; 1 when there was none or it
could not be written; 2 for usage errors.

Examples:
  reelier uninstall`

type installOptions struct {
	agent  string
	dryRun bool
}

func newInstallCmd() *cobra.Command {
	var opts installOptions
	cmd := &cobra.Command{
		Use:   "install [--agent claude] [--dry-run]",
		Short: "Front your agent's MCP servers with the recorder (backs up first)",
		Long:  installLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return installRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "claude", "the agent whose config to change (only claude)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the change as a diff; write nothing")
	return cmd
}

func newUninstallCmd() *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "uninstall [--agent claude]",
		Short: "Restore the agent config reelier install backed up",
		Long:  uninstallLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return uninstallRun(cmd, agent)
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "claude", "the agent whose config to restore (only claude)")
	return cmd
}

// agentConfigs returns the configs of the agent, in detection order.
func agentConfigs(agent string) ([]agentcfg.Config, error) {
	if agent != "claude" {
		return nil, usageErrorf("unknown --agent %q: only claude (Claude Code) is supported", agent)
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	home, _ := os.UserHomeDir()
	return agentcfg.Candidates(dir, home), nil
}

func installRun(cmd *cobra.Command, opts installOptions) error {
	candidates, err := agentConfigs(opts.agent)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	plan, err := planInstall(candidates)
	if err != nil {
		return err
	}
	writePlan(w, plan)
	switch {
	case plan.Wraps() == 0:
		fmt.Fprintln(w, "Nothing to change: no local server to wrap.")
		return nil
	case opts.dryRun:
		fmt.Fprint(w, "\n"+format.Diff(plan.Config.Path, plan.Original, plan.Updated))
		fmt.Fprintln(w, "\nDry run: nothing was written.")
		return nil
	}
	return applyInstall(w, plan)
}

// planInstall detects the config and plans the rewrite.
func planInstall(candidates []agentcfg.Config) (*agentcfg.Plan, error) {
	cfg, err := agentcfg.Detect(candidates)
	if err != nil {
		var none *agentcfg.NoConfigError
		if errors.As(err, &none) {
			return nil, &exitError{Code: exitFailed, Err: fmt.Errorf("%v.\nTo record one MCP server without a config, run: claude mcp add <name> -- reelier mcp --wrap \"<server command>\"", err)}
		}
		return nil, &exitError{Code: exitFailed, Err: err}
	}
	exe, err := reelierPath()
	if err != nil {
		return nil, err
	}
	plan, err := agentcfg.PlanInstall(cfg, exe)
	var pe *agentcfg.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, usageErrorf("%v\nThe config is not valid JSON, so nothing was changed; fix it and run reelier install again.", pe)
	case err != nil:
		return nil, &exitError{Code: exitFailed, Err: err}
	}
	return plan, nil
}

// writePlan lists what the plan does with each server.
func writePlan(w io.Writer, p *agentcfg.Plan) {
	fmt.Fprintf(w, "Config: %s (%s)\n", p.Config.Path, p.Config.Scope)
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "  (no MCP servers configured)")
	}
	for _, c := range p.Changes {
		fmt.Fprintln(w, "  "+c.Describe())
	}
}

// applyInstall backs the config up and rewrites it.
func applyInstall(w io.Writer, p *agentcfg.Plan) error {
	backup, err := agentcfg.Apply(p, time.Now())
	if err != nil {
		return &exitError{Code: exitFailed, Err: err}
	}
	fmt.Fprintf(w, "Backed up %s to %s\n", p.Config.Path, backup)
	fmt.Fprintf(w, "Wrapped %s with reelier mcp --wrap. Restart your agent to pick up the change.\n", pluralCount(p.Wraps(), "server"))
	fmt.Fprintln(w, "To revert: reelier uninstall")
	return nil
}

func uninstallRun(cmd *cobra.Command, agent string) error {
	candidates, err := agentConfigs(agent)
	if err != nil {
		return err
	}
	cfg, backup, err := agentcfg.Restore(candidates)
	if err != nil {
		return &exitError{Code: exitFailed, Err: err}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Restored %s from %s (the backup is kept). Restart your agent to pick up the change.\n", cfg.Path, backup)
	return nil
}

// reelierPath is the absolute path of the running reelier binary, which
// a wrapped config runs. A `go run` build is refused: it is deleted when
// the command ends.
func reelierPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", usageErrorf("cannot tell where the reelier binary is: %v", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "", usageErrorf("this reelier is a temporary `go run` build (%s), which is deleted when it exits; install it first (CGO_ENABLED=0 go install -trimpath ./cmd/reelier) and run that", exe)
	}
	return exe, nil
}
