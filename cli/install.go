package cli

import (
	"fmt"

	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/record/agentcfg"
	"github.com/spf13/cobra"
)

const installLong = `Front every local MCP server your agent uses with the Reelier recorder,
in place, so recording a workflow is one phrase away: afterwards, tell your
agent "record this", do the work, and "done".

The config is the first of the agent's files that exists (--agent, default
claude):
  claude   the project's .mcp.json, else ~/.claude.json (its top-level
           servers and every project's)
  gemini   the project's .gemini/settings.json, else
           ~/.gemini/settings.json ($GEMINI_CLI_HOME for ~); comments in
           it are kept byte for byte, as the Gemini CLI keeps them
  cursor   the project's .cursor/mcp.json, else ~/.cursor/mcp.json
Each reads its servers from "mcpServers". Each local
server ({"command", "args"}) is rewritten to run
  <this reelier> mcp --wrap "<its original command line>"
under the same name, with its env and every other field kept; nothing
else in the file changes (unknown keys, spacing, comments; a comment
inside the command or args value goes with it). Remote servers (url,
httpUrl, tcp) are skipped and listed.
Servers already fronted — by this command, or as
"npx -y reelier mcp --wrap …" — are left alone, so a second install
changes nothing and writes no backup.

Before anything is written the config is copied byte for byte to
<config>.backup-<timestamp>; without that backup nothing is changed. A
config that is not valid JSON (for gemini: JSON with comments) is refused
with the place of the error, and a read-only config is left alone.
--dry-run prints the change as a diff and writes nothing. Restart your
agent afterwards. ` + "`reelier uninstall`" + ` puts the newest backup back.

--agent codex does the same for the Codex CLI: its config is the
project's .codex/config.toml if it exists, otherwise config.toml under
$CODEX_HOME (~/.codex). Each [mcp_servers.<name>] with a command gets
command = "<this reelier>" and args = ["mcp", "--wrap", "<its command
line>"]; env, cwd, tool approvals, unknown keys, comments and key order
are kept byte for byte, and url servers are skipped. A config that is not
valid TOML is refused with the place of the error.

A config file with no write permission is refused, not replaced.

Exit status: 0 when the config was rewritten or needed nothing; 1 when
there is no config, or it could not be written or is read-only (it is then
unchanged); 2 for usage errors and a config that is not valid JSON (TOML
for Codex).

Examples:
  reelier install --dry-run
  reelier install
  reelier install --agent gemini
  reelier install --agent codex
  reelier uninstall`

const uninstallLong = `Undo ` + "`reelier install`" + `: restore the newest backup it wrote
(<config>.backup-<timestamp>) of the agent's project config or, when that
has none, of its user config (for claude: .mcp.json, then ~/.claude.json;
see reelier install --help for codex, gemini and cursor), byte for byte. The
backup is kept. With no backup, nothing is guessed: the command fails and
names what it checked.

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
		Use:   "install [--agent claude|codex|gemini|cursor] [--dry-run]",
		Short: "Front your agent's MCP servers with the recorder (backs up first)",
		Long:  installLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return installRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "claude", "the agent whose config to change: claude, codex, gemini or cursor")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the change as a diff; write nothing")
	return cmd
}

func newUninstallCmd() *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "uninstall [--agent claude|codex|gemini|cursor]",
		Short: "Restore the agent config reelier install backed up",
		Long:  uninstallLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return uninstallRun(cmd, agent)
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "claude", "the agent whose config to restore: claude, codex, gemini or cursor")
	return cmd
}

func installRun(cmd *cobra.Command, opts installOptions) error {
	candidates, err := agentcfg.AgentConfigs(opts.agent)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	plan, err := agentcfg.PlanFor(candidates, agentcfg.ReelierPath)
	if err != nil {
		return err
	}
	plan.WriteText(w)
	switch {
	case plan.Wraps() == 0:
		fmt.Fprintln(w, "Nothing to change: no local server to wrap.")
		return nil
	case opts.dryRun:
		fmt.Fprint(w, "\n"+format.Diff(plan.Config.Path, plan.Original, plan.Updated))
		fmt.Fprintln(w, "\nDry run: nothing was written.")
		return nil
	}
	return plan.ApplyAndReport(w)
}

func uninstallRun(cmd *cobra.Command, agent string) error {
	candidates, err := agentcfg.AgentConfigs(agent)
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
