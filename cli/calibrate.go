package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/calibrate"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/suite"
	"github.com/reelier/reelier/replay/writeback"
	"github.com/reelier/reelier/tool"
)

const calibrateLong = `Replay a skill a few times against the live servers and loosen the value
checks that changed from run to run.

The compiler guesses from one recording which fields are stable (a value
assert) and which change (a type assert). calibrate measures instead: it
replays the skill --runs times (default 3) with its checks set aside, then
holds each check to what the runs observed. A value or shape assert the
runs disagree on becomes a type assert (or is removed when the value was
sometimes missing); a body contains text that held only sometimes is
removed. A check every run contradicts alike is reported and kept — the
world differs from the recording, which is not volatility.

Steps run under the usual gates: read-only by default, --allow-writes or
--yes to let writes run (calibrate against a world they may change).
Without -w it prints what it would change and the diff; with -w it writes
the skill back, atomically and under the lock heals take, with a
changelog line.

Exit status: 0 when calibrated (whatever it found); 2 for usage errors and
skills that do not parse; 3 when a server could not be started or the
skill could not be rewritten; 130 when interrupted (nothing is written).`

const calibrateExample = `  reelier calibrate skills/weather.skill.md --wrap "npx -y @acme/weather-mcp"
  reelier calibrate -w --runs 5 --servers-from-skill skills/weather.skill.md
  reelier calibrate --json skills/weather.skill.md --wrap "node server.js" | jq .changes`

type calibrateOptions struct {
	runs             int
	vars             []string
	varFiles         []string
	yes, allowWrites bool
	write, json      bool
	wrap             []string
	wraps            wraps
	serversFromSkill bool
}

func newCalibrateCmd() *cobra.Command {
	var opts calibrateOptions
	cmd := &cobra.Command{
		Use:     "calibrate SKILL [--wrap CMD]… [flags]",
		Short:   "Replay a skill a few times and loosen value checks that changed from run to run",
		Long:    calibrateLong,
		Example: calibrateExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.wrap = opts.wraps.list
			return runCalibrate(cmd, args[0], opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.runs, "runs", calibrate.DefaultRuns, "replay the skill `N` times")
	f.StringArrayVar(&opts.vars, "var", nil, "set the template variable `name=value` (repeatable)")
	f.StringArrayVar(&opts.varFiles, "var-file", nil, "read template variables from `FILE`, one name=value a line (repeatable; --var wins; REELIER_VAR_<name> in the environment counts too)")
	f.BoolVar(&opts.yes, "yes", false, "let destructive (and idempotent-write) steps execute")
	f.BoolVar(&opts.allowWrites, "allow-writes", false, "let idempotent-write steps execute")
	f.BoolVarP(&opts.write, "write", "w", false, "write the calibrated skill back to its file")
	f.BoolVar(&opts.json, "json", false, "print the report as JSON")
	addWrapFlags(f, &opts.wraps, "start `CMD|URL` as an MCP server (a command, or the http:// or https:// URL of a remote one; repeatable; replaces the skill's recorded servers)")
	f.BoolVar(&opts.serversFromSkill, "servers-from-skill", false, "start the MCP servers the skill records, and remember that you trust them")
	return cmd
}

func runCalibrate(cmd *cobra.Command, path string, opts calibrateOptions) error {
	switch {
	case opts.runs < 1:
		return usageErrorf("--runs must be at least 1, got %d", opts.runs)
	case opts.serversFromSkill && len(opts.wrap) > 0:
		return usageErrorf("--servers-from-skill cannot be used with --wrap: --wrap replaces the servers the skill records")
	case opts.write && path == "-":
		return usageErrorf("-w needs a skill file, not standard input")
	}
	vars, err := loadVars(opts.vars, opts.varFiles, os.Environ())
	if err != nil {
		return err
	}
	servers, err := opts.wraps.resolve()
	if err != nil {
		return err
	}
	skills, err := loadSkills(cmd, []string{path})
	if err != nil {
		return err
	}
	ro := replay.Options{Tools: tool.Registry{}, Vars: vars, Yes: opts.yes, AllowWrites: opts.allowWrites}
	httptool.Register(ro.Tools, nil)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l := skills[0]
	stopTools, err := suite.StartTools(ctx, []*loader.Skill{{Path: l.path, Src: l.src, Skill: l.skill}}, suite.Options{
		Servers: servers, ServersFromSkill: opts.serversFromSkill, Stderr: cmd.ErrOrStderr(), Version: versionString()}, ro.Tools)
	if err != nil {
		return err
	}
	defer stopTools()
	rep := calibrate.Measure(ctx, l.skill, calibrate.Options{Runs: opts.runs, Run: ro})
	if ctx.Err() != nil {
		return &exitError{Code: exitInterrupted, Err: errors.New("interrupted: nothing was written")}
	}
	out := cmd.OutOrStdout()
	if opts.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := rep.WriteText(out, l.path); err != nil {
		return err
	}
	now := time.Now()
	if !opts.write {
		// What -w would write: the same edit on a copy of the tree.
		calibrated, diags := grammar.Parse(l.path, l.src)
		if !diags.HasErrors() && calibrate.Apply(calibrated, rep, now) && !opts.json {
			_, err := out.Write([]byte(format.Diff(l.path, l.src, format.Source(calibrated))))
			return err
		}
		return nil
	}
	changed, err := writeback.Rewrite(l.path, func(s *ast.Skill) (bool, error) { return calibrate.Apply(s, rep, now), nil })
	if err != nil {
		return &exitError{Code: exitTool, Err: err}
	}
	if changed && !opts.json {
		cmd.PrintErrf("[reelier] wrote %s\n", l.path)
	}
	return nil
}
