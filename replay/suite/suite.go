// Package suite is `reelier run`: it replays one or more skills as a
// suite — reading and checking them, starting the MCP servers their steps
// call (--wrap, or a skill's recorded servers through replay/skillservers),
// wiring heal, printing a dry run or the receipts, appending run records
// and writing JUnit — from an Options the command fills from its flags. It
// also holds the rules of template variables (--var, --var-file,
// REELIER_VAR_<name>, --secret-var) that reelier serve shares.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/llm"
	"github.com/reelier/reelier/replay/receipt"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/replay/skillservers"
	"github.com/reelier/reelier/tool"
	"golang.org/x/term"
)

// Options are reelier run's flags, and where it reads and writes.
type Options struct {
	// Paths are the skill files and folders to replay ("-" is stdin).
	Paths []string
	// Vars, SecretVars and VarFiles are --var, --secret-var and
	// --var-file; Environ is the environment REELIER_VAR_<name> is read
	// from, and Getenv (os.Getenv when nil) the one LLM settings,
	// provenance and colours are.
	Vars, SecretVars, VarFiles []string
	Environ                    []string
	Getenv                     func(string) string

	Yes, AllowWrites, DryRun, JSON, Verbose bool
	Jobs                                    int
	JUnit, Trace, RunsDir                   string
	MaxLevel                                int
	LLM                                     llm.Flags
	Heal                                    HealOptions
	// Servers are the --wrap servers, which replace the skills' recorded
	// ones; ServersFromSkill trusts the recorded ones to be started.
	Servers          []mcpx.ServerSpec
	ServersFromSkill bool
	// Quiet discards the servers' stderr; Version is the client version
	// the servers are told.
	Quiet   bool
	Version string
	// Timeout, Retry and RetryInterval bound calls and retry read steps
	// (RetryIntervalSet: --retry-interval was given); Handshake bounds
	// starting an MCP server.
	Timeout, RetryInterval, Handshake time.Duration
	// NoticeAfter is how long a handshake or a call runs before a "still
	// waiting" line says so on Stderr (and then again at that interval);
	// mcpx.WaitNotice if 0.
	NoticeAfter                 time.Duration
	RetryIntervalSet            bool
	Retry                       int
	SkipWrites, FailOnUnchecked bool
	// FailOnOpenQuestions makes a skill with unresolved open questions
	// exit 1, whatever its verdict.
	FailOnOpenQuestions bool
	// IgnoreToolDrift runs skills whose tools drifted anyway.
	IgnoreToolDrift bool
	// RunID, when set, names every run of the suite (--run-id): a retry
	// of an earlier run given its ID sends its writes the same
	// idempotency keys. Empty gives each run a fresh ID.
	RunID string
	// Policy, when set, is put every step's call (replay.Options.Policy).
	Policy *policy.Policy

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// AfterRecord, when not nil, is called with each run record once it
	// is appended to the history (concurrently under --jobs): reelier run
	// --sign signs it there. It returns what to show (the signature's
	// path); its error is a warning and exit status 3.
	AfterRecord func(l *loader.Skill, rec *runlog.Record) (string, error)
	// BeforeParse, when not nil, is told each file's size before a dry run
	// parses it (the command sets its collector there).
	BeforeParse func(size int)
	// Fail is --fail N[=KIND]: fail step N of every skill on purpose
	// (replay.Options.Inject); "" injects nothing.
	Fail string
	// Exit is what a second Ctrl-C calls with status 130 (the first one
	// stops the run, printing StoppingNotice); os.Exit when nil.
	Exit func(int)
}

func (o *Options) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

// Run replays opts.Paths and reports on them. Its error carries the exit
// status (internal/exitstatus): the worst over the skills of the suite.
func Run(ctx context.Context, opts Options) error {
	vars, err := LoadVars(opts.Vars, opts.VarFiles, opts.Environ)
	if err != nil {
		return err
	}
	if err := AddSecretVars(vars, opts.SecretVars); err != nil {
		return err
	}
	switch {
	case opts.Jobs < 1:
		return exitstatus.Usagef("--jobs must be at least 1, got %d", opts.Jobs)
	case opts.DryRun && opts.JUnit != "":
		return exitstatus.Usagef("--junit cannot be used with --dry-run: a dry run executes nothing")
	case opts.DryRun && opts.Trace != "":
		return exitstatus.Usagef("--trace cannot be used with --dry-run: a dry run calls no tool")
	case opts.MaxLevel < 0 || opts.MaxLevel > 2:
		return exitstatus.Usagef("--max-level must be 0, 1 or 2, got %d", opts.MaxLevel)
	case opts.ServersFromSkill && len(opts.Servers) > 0:
		return exitstatus.Usagef("--servers-from-skill cannot be used with --wrap: --wrap replaces the servers the skills record")
	case opts.Timeout < 0 || opts.Handshake < 0 || opts.RetryInterval < 0:
		return exitstatus.Usagef("--timeout, --handshake-timeout and --retry-interval must not be negative")
	case opts.Retry < 0 || opts.Retry > 100:
		return exitstatus.Usagef("--retry must be 0 to 100, got %d", opts.Retry)
	case opts.RunID != "" && !validRunID(opts.RunID):
		return exitstatus.Usagef("--run-id must be 1 to 128 letters, digits, '.', '_' or '-', got %q", termtext.Line(opts.RunID))
	}
	if err := opts.Heal.Check(opts.JSON); err != nil {
		return err
	}
	var inject *runlog.Injection
	if opts.Fail != "" {
		if inject, err = replay.ParseInjection(opts.Fail); err != nil {
			return exitstatus.Usagef("%v", err)
		}
	}
	skills, broken, err := LoadSuite(opts.Paths, vars, opts.DryRun, opts.Stdin, opts.Stderr, opts.BeforeParse)
	if err != nil {
		return err
	}
	if inject != nil {
		for _, l := range skills {
			if err := replay.CheckInjection(l.Skill, inject); err != nil {
				return exitstatus.Usagef("%s: %v", l.Path, err)
			}
		}
		if opts.MaxLevel > 0 && opts.Heal.Mode == HealWrite {
			// An injected failure is not in the server: a heal of it
			// would write a fault that does not exist into the skill.
			// The heal runs, and is proposed, never written.
			opts.Heal.Mode = HealPropose
			fmt.Fprintf(opts.Stderr, "reelier run: --fail %d=%s: a heal of the injected failure is proposed, never written into the skill (the failure is not in the server)\n", inject.Step, inject.Kind)
		}
	}
	if opts.Trace != "" && len(skills)+len(broken) > 1 {
		return exitstatus.Usagef("--trace takes one skill: a trace is one replay (replay the skills one at a time, each with its own --trace FILE)")
	}
	limits := replay.Limits{Timeout: opts.Timeout, Retry: opts.Retry, RetryInterval: opts.RetryInterval}
	if opts.Timeout > 0 {
		limits.From = "--timeout"
	}
	if limits.Retry > 0 && limits.RetryInterval == 0 && !opts.RetryIntervalSet {
		limits.RetryInterval = time.Second
	}
	base := replay.Options{Tools: tool.Registry{}, Vars: vars, Yes: opts.Yes, AllowWrites: opts.AllowWrites,
		Limits: limits, SkipWrites: opts.SkipWrites, IgnoreToolDrift: opts.IgnoreToolDrift, RunID: opts.RunID, Policy: opts.Policy, Inject: inject}
	httptool.Register(base.Tools, nil)
	ctx, stopSignals := interruptible(ctx, opts.Stderr, opts.Exit)
	defer stopSignals()
	if opts.DryRun && len(opts.Servers) == 0 {
		// A dry run starts nothing: the tools the skills' Servers
		// sections list count as known.
		base.SkillServers = true
	} else {
		// --wrap is started for dry runs too, so tool names are checked
		// against what the servers really offer; a dry run still calls
		// no tool.
		stop, err := StartTools(ctx, skills, opts, base.Tools)
		if err != nil {
			return err
		}
		defer stop()
	}
	if opts.DryRun {
		if err := dryRunSkills(opts.Stdout, skills, base, opts.JSON); err != nil || len(broken) == 0 {
			return err
		}
		// The skills that could not be read were reported above.
		return exitstatus.Silent(exitstatus.Usage)
	}
	if opts.MaxLevel >= 1 && opts.Heal.Prices == nil {
		prices, err := cost.Load()
		if err != nil {
			return exitstatus.Usagef("the price table: %v", err)
		}
		opts.Heal.Prices = prices
	}
	s := &runner{opts: opts, base: base, out: opts.Stdout, errw: opts.Stderr,
		ladder: Ladders(opts.MaxLevel, opts.LLM, opts.Heal, opts.getenv), broken: broken}
	s.style = TerminalStyle(s.out, opts.getenv)
	s.run(ctx, skills)
	return s.finish(ctx)
}

// StartTools starts the MCP servers steps call and registers their tools
// in reg: opts.Servers when there are any (they replace the servers
// the skills record), the skills' recorded servers otherwise — only now,
// after the skills have parsed, and only when trusted. The returned
// function stops them. Of opts it reads Servers, ServersFromSkill,
// Stderr, Quiet, Version and Handshake.
func StartTools(ctx context.Context, skills []*loader.Skill, opts Options, reg tool.Registry) (func(), error) {
	if len(opts.Servers) > 0 {
		router, err := mcpx.StartServers(ctx, opts.Servers, mcpx.Options{Stderr: opts.Stderr, Quiet: opts.Quiet, Version: opts.Version, StartTimeout: opts.Handshake, StartTimeoutFlag: "--handshake-timeout", NoticeAfter: opts.NoticeAfter})
		if err != nil {
			return nil, exitstatus.ToolErr(err)
		}
		router.Register(reg, opts.Stderr)
		return func() { router.Close() }, nil
	}
	recorded := make([]*skillservers.Skill, len(skills))
	for i, l := range skills {
		recorded[i] = &skillservers.Skill{Path: l.Path, Stdin: l.Path == loader.StdinName, Skill: l.Skill}
	}
	stop, err := skillservers.Start(ctx, recorded, reg, skillservers.Options{Trust: opts.ServersFromSkill, Stderr: opts.Stderr, Quiet: opts.Quiet, Version: opts.Version, StartTimeout: opts.Handshake, StartTimeoutFlag: "--handshake-timeout", NoticeAfter: opts.NoticeAfter})
	var refused *skillservers.RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, exitstatus.Usagef("%s", refused.Msg)
	case err != nil:
		return nil, exitstatus.ToolErr(err)
	}
	return stop, nil
}

// Broken is a skill of a suite that cannot run: missing, unreadable,
// unparseable, not a replayable skill, limits that do not read, or inputs
// nobody supplied.
type Broken struct {
	Path string
	Err  error
}

// LoadSuite reads, parses and checks every skill before anything runs.
// Each problem is printed to errw as it is found. A skill with a problem
// is returned among the broken ones and the others still run; when every
// skill is broken, nothing runs and the error says so (exit 2). A dry run
// leaves a missing input's holes as written, and tells before (when not
// nil) each file's size before it is parsed.
func LoadSuite(paths []string, vars map[string]string, dryRun bool, stdin io.Reader, errw io.Writer, before func(int)) ([]*loader.Skill, []Broken, error) {
	paths, err := loader.Expand(paths)
	if err != nil {
		return nil, nil, err
	}
	var skills []*loader.Skill
	var broken []Broken
	fail := func(path string, err error) {
		broken = append(broken, Broken{Path: path, Err: err})
	}
	if !dryRun {
		before = nil
	}
	for _, p := range paths {
		l, err := loader.Load(p, stdin, before)
		switch {
		case err != nil:
			fmt.Fprintln(errw, "reelier run:", err)
			fail(p, err)
			continue
		case l.Diags.HasErrors() && loader.IsAgentSkillFile(l.Path) && !grammar.HasStepHeader(l.Src):
			err := loader.NotReplayable(l.Path)
			fmt.Fprintln(errw, "reelier run:", err)
			fail(l.Path, err)
			continue
		}
		loader.PrintDiagnostics(errw, l.Diags)
		if l.Diags.HasErrors() {
			fail(l.Path, fmt.Errorf("%s does not parse: %s", l.Path, loader.FirstError(l.Diags)))
			continue
		}
		if _, err := replay.SkillLimits(l.Skill); err != nil {
			err = fmt.Errorf("%s:%s", l.Path, strings.ReplaceAll(err.Error(), "\n", "\n"+l.Path+":"))
			fmt.Fprintln(errw, err)
			fail(l.Path, err)
			continue
		}
		if err := replay.SkillApprovals(l.Skill); err != nil {
			err = fmt.Errorf("%s:%s", l.Path, strings.ReplaceAll(err.Error(), "\n", "\n"+l.Path+":"))
			fmt.Fprintln(errw, err)
			fail(l.Path, err)
			continue
		}
		if err := replay.SkillTools(l.Skill); err != nil {
			err = fmt.Errorf("%s:%s", l.Path, strings.ReplaceAll(err.Error(), "\n", "\n"+l.Path+":"))
			fmt.Fprintln(errw, err)
			fail(l.Path, err)
			continue
		}
		if !dryRun {
			if missing := replay.MissingInputs(l.Skill, vars); len(missing) > 0 {
				err := MissingInputs(l.Path, missing)
				fmt.Fprintln(errw, err)
				fail(l.Path, err)
				continue
			}
		}
		skills = append(skills, l)
	}
	if len(skills) == 0 {
		return nil, nil, exitstatus.Silent(exitstatus.Usage)
	}
	return skills, broken, nil
}

// validRunID says what a --run-id may hold: 1 to 128 letters, digits,
// '.', '_' and '-'. (A regular expression with {1,128} compiled 118 KB of
// program at every process's start.)
func validRunID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(words.IsIdentByte(c) || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// MissingInputs names every input the run was not given, where each is
// first used and how to give it.
func MissingInputs(path string, missing []replay.Input) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d input", path, len(missing))
	if len(missing) > 1 {
		b.WriteString("s")
	}
	b.WriteString(" not given, so nothing ran:")
	for _, in := range missing {
		fmt.Fprintf(&b, "\n  %s:%d:%d: {{%s}} (step %d) — --var %s=…, a --var-file line, or REELIER_VAR_%s", path, in.Range.Start.Line, in.Range.Start.Column, in.Name, in.Step, in.Name, in.Name)
	}
	return errors.New(b.String())
}

// TerminalStyle decides live progress and colour for a writer: both need a
// terminal, and colour also needs NO_COLOR unset and a capable TERM
// (read with getenv).
func TerminalStyle(w io.Writer, getenv func(string) string) *receipt.Style {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &receipt.Style{Color: getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"}
}

// writeJUnit writes the report atomically, creating its directory.
func writeJUnit(path string, runs []receipt.Run) error {
	data, err := receipt.JUnit(runs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing the JUnit report: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("writing the JUnit report: %w", err)
	}
	return nil
}
