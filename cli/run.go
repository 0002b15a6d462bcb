package cli

import (
	"bufio"
	"io"
	"os"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/llm"
	"github.com/reelier/reelier/replay/receipt"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/replay/suite"
	"github.com/spf13/cobra"
)

const runLong = `Replay skills at Level 0: each step's action is filled from the
bindings so far, called, and checked against every assert and bind, with no
LLM anywhere. After the first failed step the rest are skipped.

Effects are gated: a destructive step is refused (its filled action is
shown instead) unless --yes is given, and an idempotent-write step is
refused unless --allow-writes or --yes is given. A refused step fails,
unless --skip-writes records it as skipped: the steps after it still run,
except those that need a value it would have bound.

Inputs: every {{name}} that no earlier step binds must be given (--var,
--var-file, or REELIER_VAR_<name> in the environment) before anything
runs; otherwise nothing runs, each missing input is named at its line,
and the exit status is 2.

Time limits: each tool call gets --timeout (else the skill's metadata
reelier-timeout, else 15s for http.* and 30s for MCP tools); a call that
runs out of time fails its step as a tool error naming the limit.
--handshake-timeout bounds starting an MCP server. --retry N executes a
read step whose checks did not hold up to N more times (never a write),
--retry-interval apart; every attempt is on the record.

Each run appends one JSON line, its run record, to
<runs-dir>/<skill-name>.jsonl: each step's outcome, filled action and bind
values (redacted), and a digest of what the tool returned. Outcomes are
honest: a step with no asserts is "unchecked", never "passed". Each run has
one verdict — passed, failed, config (a refused write or an input that
could not be sent stopped it: how the run was set up, not drift),
unchecked (nothing was checked) or interrupted — the same word in the
receipt, --json and JUnit. The run record names the MCP servers it ran
against, and marks a run against 'reelier mock' (a recording, not a
live server); the receipt says so. --trace FILE
also writes the replay itself as a trace (one skill at a time), which
reelier trace prints, reelier compile reads and reelier diff compares with
the recording the skill came from.

Output: a receipt per skill on stdout, written step by step as the steps
end (on a terminal with a running line and colours unless NO_COLOR is set;
in a log or a pipe as plain lines, one per step); with --json the run
records instead, one per line. A server handshake or a call that runs on
prints "still waiting …" to stderr every 5 seconds, naming the flag that
bounds it (--handshake-timeout, --timeout). --dry-run fills and prints every action and executes and writes
nothing. Several skills run as a suite, --jobs of them at a time;
--junit writes a JUnit XML report with one testcase per step.

Self-healing: with --max-level 1 or 2, a step that diverges after its
tool ran is escalated to an LLM (bring your own key). Level 1 re-reads the
same response with patched asserts and binds, executing nothing again;
Level 2, tried when Level 1 did not hold, may also patch the arguments and
re-execute the step exactly once, never for a destructive step. Every
patched line is checked with the skill grammar and against the response
before it is accepted; a heal is written back to the skill file with a
changelog line. LLM settings (flags > environment > defaults):
--llm-base-url / REELIER_LLM_BASE_URL (https://api.anthropic.com; any other
host speaks OpenAI-compatible chat completions), --llm-api-key /
REELIER_LLM_API_KEY (ANTHROPIC_API_KEY for api.anthropic.com), --llm-model /
REELIER_LLM_MODEL, --llm-l2-model / REELIER_LLM_L2_MODEL. The key is needed
only when a step escalates; at --max-level 0, the default, no LLM is ever
contacted.

A heal may change what a check expects, or move it with its field, but
not check less: a patch that drops a value check (==, !=, <, >, <=, >=,
matches, contains, length, status) or turns it into a type, presence or
status-only check is refused and the step fails, unless
--allow-weaker-heal is given. The run record keeps each heal's lines
before and after. --heal=propose leaves the skill file as it is and
prints the unified diff of each healed skill after its receipt
(--heal-patch FILE writes them to FILE instead; needed with --json).

Template holes: {{name}} takes a --var or an earlier step's bind;
{{today}}, {{today-Nd}} and {{today+Nd}} (N = 1..365) are UTC dates from
one clock reading per run.

Builtin tools: http.get {"url", "headers"?} and
http.post {"url", "headers"?, "body"?}, 15 s timeout each.

MCP tools: a compiled skill lists the servers it was recorded with in a
"## Servers" section. Without --wrap, reelier run starts them (in that
order) once you have trusted the file: a skill's commands run as you, so
the first run refuses and shows them; --servers-from-skill starts them and
remembers, per file, until the commands change (in trusted-servers.json
under your user config directory). --wrap CMD (repeatable) starts the
servers you name instead, and the skill's list is ignored. A --wrap (or a
recorded server) may be the http:// or https:// URL of a remote server
(streamable HTTP); --wrap-header 'NAME: VALUE' after it sends it a
header, $VAR in VALUE read from the environment, and a skill recorded
against one lists its headers that way, never their values. Steps call
tools by the names reelier mcp exposed when the skill was recorded (the
later of two same-named tools is <index>_<name>); http.* stays available.
--dry-run starts no recorded server: the tools the section lists count as
known. An unknown tool that the section lists names its server and the
--wrap that starts it. A tool result becomes status 200 (500 when it is
an error), no headers, and a body of its text blocks joined by newlines.

Exit status (the worst over the skills of a suite): 0 passed or
unchecked; 1 a check did not hold (or a run checked nothing and
--fail-on-unchecked was given, or a skill that ran has unresolved open
questions and --fail-on-open-questions was given); 2 bad usage or input — a skill that
cannot be read or parsed, missing inputs, a write the gate refused or an
input that could not be sent (verdict config), recorded servers not
trusted yet; 3 a tool or environment error — a
server that cannot start or crashed, a call that timed out, a refused
connection, a record that could not be written; 130 interrupted (Ctrl-C).
A skill of a suite that cannot run is reported and the others still run.

Ctrl-C: the first prints "stopping…" and cancels the call in flight (an
MCP server is sent notifications/cancelled); that step is recorded
interrupted, with what was sent — the server may have acted on it — and
the record and receipt are written. A second Ctrl-C quits at once.

Signed receipts: --sign (or REELIER_SIGN=1 in the environment) signs each
run record with your key (reelier key init; --sign-key FILE or
$REELIER_SIGN_KEY for another) as an in-toto statement in a Sigstore
bundle, written beside the history as
<runs-dir>/<skill>.bundles/<started>-<record sha256>.sigstore.json; the
receipt names it. reelier verify BUNDLE --key signing.pub checks it. A key
that cannot be read stops the run before anything runs (exit 2); a record
that could not be signed is a warning and exit 3.

Open questions: a compiled skill lists under "## Open questions" what
the compiler could not know (a position in an array it could not explain,
a literal it would not guess). A run says how many are unresolved and on
which lines, on the receipt (PASSED — 3 open questions …), in the run
record (openQuestions), in JUnit and in reelier summary; a question is
resolved by deleting its bullet or checking it off (- [x] …).
--fail-on-open-questions makes any unresolved one fail the run (exit 1).

Tool drift: a skill compiled from a trace that kept its servers' tool
definitions carries, in its metadata reelier-tools, a signature of each
MCP tool it calls (argument names, types and requiredness, digests of the
input and output schemas, annotation hints). Before step 1, reelier run
compares them with what the started servers (--wrap, or the skill's
Servers section) offer now. On a difference no step runs: the receipt
names each server, tool and change (a field added, removed or retyped, a
field made required, another schema change, an annotation changed, a
tool no longer offered), the run record keeps it as toolDrift, and the
exit status is 1. --ignore-tool-drift runs the steps anyway and the
record and the receipt say it was ignored. A skill without the metadata
runs as before. A dry run calls no tool and compares nothing.

Failing on purpose: --fail N[=KIND] makes step N fail without an
outage, so a heal ladder or a CI job can be tried: error (the default:
the tool answers with an error result, so the step's checks fail, or it
fails as a tool error when none catches it), timeout (the call runs out
of time: exit 3) or schema (the tool's input schema changed: tool drift
before step 1, exit 1). Nothing is sent for that step. The run record
keeps injected {step, kind}, the receipt says so, and reelier push does
not send the run. A heal of an injected failure is proposed, never
written into the skill: the failure is not in the server. A step number
the skill does not have, or an unknown kind, is exit 2.

Examples:
  reelier run skills/weekly-bookings.skill.md
  reelier run skills/weekly-bookings.skill.md --var hotel=h_bergen_02
  reelier run --dry-run skills/weekly-bookings.skill.md
  reelier run --allow-writes skills/upsert-contact.skill.md
  reelier run --max-level 1 skills/weekly-bookings.skill.md
  reelier run --max-level 2 --llm-base-url http://127.0.0.1:11434/v1 \
      --llm-model qwen3:8b --llm-l2-model qwen3:32b skills/weekly-bookings.skill.md
  reelier run --servers-from-skill skills/crm-followup.skill.md
  reelier run --wrap "npx -y @acme/crm-mcp" skills/crm-followup.skill.md
  reelier run --wrap https://mcp.example.com/mcp --wrap-header 'Authorization: Bearer $EXAMPLE_TOKEN' crm.skill.md
  reelier run --ignore-tool-drift --wrap "npx -y @acme/crm-mcp@2" skills/crm-followup.skill.md
  reelier run --jobs 4 --junit replay.xml skills/*.skill.md
  reelier run --json skills/weekly-bookings.skill.md | jq .totals
  reelier run --fail 2=timeout skills/weekly-bookings.skill.md`

// runOptions are reelier run's flags: suite.Options, with --wrap as given.
type runOptions struct {
	suite.Options
	wraps wraps
	// sign and signKey are --sign and --sign-key.
	sign    bool
	signKey string
	policy  string
}

func newRunCmd() *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use:   "run SKILL… [--var name=value]… [flags]",
		Short: "Replay skills at Level 0 (no LLM) and print receipts",
		Long:  runLong,
		Args:  runArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			return runRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Vars, "var", nil, "set the template variable `name=value` (repeatable)")
	f.StringArrayVar(&opts.SecretVars, "secret-var", nil, "set the template variable `name=value` like --var, and treat the value as a secret: it is blanked («redacted:name») in the trace, --verbose output, receipts and run records (repeatable)")
	f.StringArrayVar(&opts.VarFiles, "var-file", nil, "read template variables from `FILE`, one name=value a line (repeatable; --var wins; REELIER_VAR_<name> in the environment counts too)")
	f.BoolVar(&opts.Yes, "yes", false, "let destructive (and idempotent-write) steps execute")
	f.BoolVar(&opts.AllowWrites, "allow-writes", false, "let idempotent-write steps execute")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print every filled action; execute and write nothing")
	f.BoolVar(&opts.JSON, "json", false, "print run records (JSON lines) instead of receipts")
	f.BoolVar(&opts.Verbose, "verbose", false, "show each step's request and response (redacted), and a failed step's whole response body (by default its first 20 lines, 2,000 characters)")
	f.IntVar(&opts.Jobs, "jobs", 1, "number of skills to run at once")
	f.StringVar(&opts.JUnit, "junit", "", "write a JUnit XML report to `FILE`")
	f.StringVar(&opts.Trace, "trace", "", "write the replay as a trace to `FILE`, in the format reelier mcp records (one skill only)")
	f.StringVar(&opts.RunsDir, "runs-dir", runlog.DefaultDir, "keep run records in `DIR`")
	addWrapFlags(f, &opts.wraps, "start `CMD|URL` as an MCP server (a command, or the http:// or https:// URL of a remote one) and call its tools by the names reelier mcp exposes (repeatable; replaces the skill's recorded servers)")
	f.BoolVar(&opts.ServersFromSkill, "servers-from-skill", false, "start the MCP servers the skills record, and remember for each file that you trust them")
	f.BoolVar(&opts.Quiet, "quiet", false, "discard the MCP servers' stderr (otherwise printed as \"[name] line\")")
	f.DurationVar(&opts.Timeout, "timeout", 0, "bound each tool call by `D` (default 30s, 15s for http.*; the skill's metadata reelier-timeout when not given)")
	f.DurationVar(&opts.Handshake, "handshake-timeout", 0, "bound starting each MCP server and its handshake by `D` (default 60s)")
	f.IntVar(&opts.Retry, "retry", 0, "execute a read step whose checks did not hold up to `N` more times (never a write)")
	f.DurationVar(&opts.RetryInterval, "retry-interval", 0, "wait `D` before each retry (default 1s when --retry is set)")
	f.BoolVar(&opts.SkipWrites, "skip-writes", false, "record steps the effect gate refuses as skipped and go on with the steps that do not need their binds")
	f.BoolVar(&opts.FailOnUnchecked, "fail-on-unchecked", false, "exit 1 when a run checked nothing (verdict unchecked)")
	f.BoolVar(&opts.FailOnOpenQuestions, "fail-on-open-questions", false, "exit 1 when a skill that ran has unresolved open questions (bullets under ## Open questions), whatever its verdict")
	f.StringVar(&opts.policy, "policy", "", "put every step's call to the policy in `FILE` (default: .reelier/policy.yaml here, then the user's; see `reelier policy`), evaluated by the reelier-seatbelt program reelier hands the process to; a policy that does not load, or no such program, runs nothing (exit 2)")
	f.BoolVar(&opts.IgnoreToolDrift, "ignore-tool-drift", false, "run the steps even when the servers' tools differ from the skill's reelier-tools signatures (the record and the receipt say so)")
	f.StringVar(&opts.RunID, "run-id", "", "name the run `ID` (its record's runId) instead of a fresh random one: a retry of a run given its ID sends each write step the same idempotency key (_meta dev.reelier/idempotency-key)")
	f.StringVar(&opts.Fail, "fail", "", "fail step `N[=KIND]` on purpose, to exercise heal and CI without an outage: KIND error (the tool answers with an error result; the default), timeout (the call times out) or schema (the tool's schema changed: tool drift); nothing is sent for that step, the record says injected, reelier push does not send it")
	f.IntVar(&opts.MaxLevel, "max-level", 0, "escalate a diverged step up to `LEVEL` 0 (never), 1 or 2")
	f.StringVar(&opts.LLM.BaseURL, "llm-base-url", "", "LLM endpoint `URL` (env "+llm.EnvBaseURL+", default "+llm.DefaultBaseURL+")")
	f.StringVar(&opts.LLM.APIKey, "llm-api-key", "", "LLM API `KEY` (env "+llm.EnvAPIKey+"; prefer the environment)")
	f.StringVar(&opts.LLM.Model, "llm-model", "", "Level 1 `MODEL` (env "+llm.EnvModel+", default "+llm.DefaultModel+")")
	f.StringVar(&opts.LLM.L2Model, "llm-l2-model", "", "Level 2 `MODEL` (env "+llm.EnvL2Model+", default "+llm.DefaultL2Model+")")
	f.StringVar(&opts.Heal.Mode, "heal", suite.HealWrite, "what a heal that holds does: `MODE` write (into the skill file, with a changelog line) or propose (leave the file, print the diff)")
	f.StringVar(&opts.Heal.PatchFile, "heal-patch", "", "with --heal=propose, write the proposed heals as one unified diff to `FILE` instead of stdout")
	f.BoolVar(&opts.Heal.AllowWeaker, "allow-weaker-heal", false, "accept a heal that drops value checks or turns them into type, presence or status checks")
	f.BoolVar(&opts.sign, "sign", false, "sign each run record (an in-toto statement in a Sigstore bundle, written to <runs-dir>/<skill>.bundles/; default on when "+envSign+"=1; verify with reelier verify)")
	f.StringVar(&opts.signKey, "sign-key", "", "sign with the private key in `FILE` (default $"+envSignKey+", else the key reelier key init made)")
	return cmd
}

func runRun(cmd *cobra.Command, opts runOptions) error {
	servers, err := opts.wraps.resolve()
	if err != nil {
		return err
	}
	pol, err := loadPolicy(opts.policy)
	if err != nil {
		return err
	}
	o := opts.Options
	o.Policy = pol
	o.Servers, o.Environ, o.Version = servers, os.Environ(), versionString()
	o.RetryIntervalSet = cmd.Flags().Changed("retry-interval")
	o.Stdin, o.Stdout, o.Stderr, o.BeforeParse = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), gcForFile
	sign := opts.sign || opts.signKey != "" || (!cmd.Flags().Changed("sign") && signFromEnv())
	if sign && !o.DryRun {
		key := opts.signKey
		if key == "" {
			key = defaultSignKey()
		}
		signer, err := recordSigner(key, o.RunsDir, servers)
		if err != nil {
			return err
		}
		o.AfterRecord = signer
	}
	return suite.Run(cmd.Context(), o)
}

// runArgs refuses a run with nothing to replay, saying what to give.
func runArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usageErrorf("run needs a skill to replay\nUsage: reelier run SKILL… | DIR [flags]\nRun 'reelier run --help' for the flags and examples.")
	}
	return nil
}

// loadSkills reads and parses every skill. Diagnostics are printed; any
// error means nothing runs (exit 2).
func loadSkills(cmd *cobra.Command, paths []string) ([]*loadedSkill, error) {
	paths, err := expandSkillPaths(paths)
	if err != nil {
		return nil, err
	}
	var skills []*loadedSkill
	bad := false
	for _, p := range paths {
		l, err := loadSkill(p, cmd.InOrStdin())
		if err != nil {
			return nil, err
		}
		if l.diags.HasErrors() && isAgentSkillFile(l.path) && !grammar.HasStepHeader(l.src) {
			return nil, notReplayable(l.path)
		}
		printDiagnostics(cmd.ErrOrStderr(), l.diags)
		bad = bad || l.diags.HasErrors()
		skills = append(skills, l)
	}
	if bad {
		return nil, silentExit(exitUsage)
	}
	return skills, nil
}

// terminalStyle decides live progress and colour for a writer
// (suite.TerminalStyle, from the process's environment).
func terminalStyle(w io.Writer) *receipt.Style { return suite.TerminalStyle(w, os.Getenv) }

// writeDryText prints a dry run's plan of one skill for reading.
func writeDryText(w *bufio.Writer, l *loadedSkill, plan []replay.PlannedStep, skillServers bool) {
	suite.WriteDryText(w, l.path, l.skill, plan, skillServers)
}
