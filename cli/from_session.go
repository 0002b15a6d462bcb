package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/record/agentcfg"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/replay/cost"
	"github.com/spf13/cobra"
)

const fromSessionLong = `Compile a skill from a session your agent already had: a Claude Code
transcript (~/.claude/projects/<project>/<session>.jsonl), or, with "-",
the stream-json output of a live run read from standard input; or a Gemini
CLI session — the chat recording it writes as it runs
(~/.gemini/tmp/<project>/chats/session-*.jsonl, or session-*.json from
earlier versions) or a checkpoint /chat save wrote
(~/.gemini/tmp/<project>/checkpoint-<tag>.json). Which agent wrote the
file is told from its first bytes.

A Codex CLI rollout file ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl,
~/.codex by default) is known by its name or its first line and read as
Codex writes it: its MCP calls (mcp__<server>__<tool>) with the result
the server returned as Codex logged it; a call Codex refused or answered
only with text for the model is skipped with its reason, as are its shell
and patch calls. What ` + "`codex exec --json`" + ` prints, piped in with "-", is
read the same way, as an observation.

Only calls that replay deterministically become steps: Reelier's builtins
http.get and http.post, and MCP tools (mcp__<server>__<tool> in Claude
Code, mcp_<server>_<tool> in the Gemini CLI, recorded as the bare <tool>,
the name ` + "`reelier mcp --wrap`" + ` exposes it under). Everything
else — Bash, Read, Edit, Write, Task, WebFetch, the Gemini CLI's
run_shell_command, write_file, … — is default-denied, and
a call whose result never appears is left out, not guessed. The skip list
(tool, reason, count) is always printed. The calls go through the same
compiler as ` + "`reelier compile`" + `, so binds and open questions are the same.

How the calls were observed is written into the skill: a file on disk is
something the session itself could have written, so a skill compiled from
one is a reconstruction ("observed: file"); the stream a harness prints on
its own standard output is an observation ("observed: stream"). Recording
through ` + "`reelier mcp`" + ` (see ` + "`reelier install`" + `) is lossless and keeps tool
annotations; compiling from history is the zero-setup way in.

Last comes the product's case in one line: what the agent's session cost
— the tokens its host logged (for Claude Code, each assistant message's
usage once; for a stream, its result line's totals), priced with
Reelier's price table and your own (see reelier cost --help; a model
without a price is "price unknown", never $0) — against what a replay of
the skill costs at Level 0: nothing, 0 LLM tokens.

The skill is written to --out, or to <name>.skill.md in the current
directory (--name defaults to session-<first 8 characters of its id>);
an existing file is only replaced with --force. --json prints a report
instead of text.

A Reelier trace (a recording of ` + "`reelier mcp`" + `, whose first line is
{"t":"meta",…}) is not a transcript: it is refused with the
` + "`reelier compile`" + ` command that reads it.

Lines that cannot be read are counted, never fatal; the first one is
named as FILE:LINE:COL with what was wrong.

Exit status: 0 when the skill was written; 1 when the session has no
replayable call (nothing is written); 2 for usage errors, an unreadable
transcript, a Reelier trace, or an output file that exists or cannot be
written.

Examples:
  reelier from-session ~/.claude/projects/-home-ann-my-app/2f8e5c1a-….jsonl
  reelier from-session ~/.codex/sessions/2026/07/19/rollout-2026-07-19T10-00-00-….jsonl
  reelier from-session session.jsonl --name weekly-report --out skills/weekly.skill.md
  reelier from-session ~/.gemini/tmp/my-app/chats/session-2026-07-19T10-02-5e55a0b1.jsonl
  claude -p "pull this week's bookings" --output-format stream-json --verbose \
    | reelier from-session - --name weekly-bookings
  codex exec --json "pull this week's bookings" | reelier from-session - --name weekly-bookings`

type fromSessionOptions struct {
	input string
	out   string
	name  string
	force bool
	json  bool
}

func newFromSessionCmd() *cobra.Command {
	var opts fromSessionOptions
	cmd := &cobra.Command{
		Use:   "from-session FILE|- [--out FILE] [--name NAME] [--force] [--json]",
		Short: "Compile a skill from an agent session transcript",
		Long:  fromSessionLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.input = args[0]
			return fromSessionRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.out, "out", "o", "", "write the skill to `FILE` (default <name>.skill.md)")
	f.StringVar(&opts.name, "name", "", "the skill's `NAME` (default session-<id>)")
	f.BoolVar(&opts.force, "force", false, "replace the output file if it exists")
	f.BoolVar(&opts.json, "json", false, "print a JSON report")
	return cmd
}

// fromSessionReport is the --json output.
type fromSessionReport struct {
	OK         bool               `json:"ok"`
	Input      string             `json:"input"`
	Host       string             `json:"host"`
	Observed   string             `json:"observed"`
	Replayable int                `json:"replayable"`
	Skipped    []session.Skip     `json:"skipped"`
	Lines      session.LineCounts `json:"lines"`
	Error      string             `json:"error,omitempty"`
	Summary    *compile.Summary   `json:"summary,omitempty"`
	// Cost is what the session's tokens cost against its replay.
	Cost session.Cost `json:"cost"`
}

func fromSessionRun(cmd *cobra.Command, opts fromSessionOptions) error {
	prices, err := cost.Load()
	if err != nil {
		return usageErrorf("the price table: %v", err)
	}
	s, source, err := session.ReadInput(opts.input, cmd.InOrStdin())
	if err != nil {
		return err
	}
	if s.ReelierTrace {
		if opts.input == "-" {
			return usageErrorf("standard input is a Reelier trace (recorded by reelier mcp), not an agent session transcript; save it to a file and compile that: reelier compile FILE")
		}
		return usageErrorf("%s is a Reelier trace (recorded by reelier mcp), not an agent session transcript; compile it with: reelier compile %s", opts.input, agentcfg.ShellJoin([]string{opts.input}))
	}
	observed := session.ObservedFile
	if opts.input == "-" && s.Init {
		observed = session.ObservedStream
	}
	name := opts.name
	if name == "" {
		path := opts.input
		if path == "-" {
			path = ""
		}
		name = s.DefaultName(path)
	}
	out := opts.out
	if out == "" {
		out = compile.DefaultSkillPath(name, opts.input)
	}
	rep := fromSessionReport{Input: source, Host: s.Host, Observed: observed, Replayable: len(s.Calls), Skipped: s.Skipped, Lines: s.Lines, Cost: s.Cost(prices)}
	if rep.Skipped == nil {
		rep.Skipped = []session.Skip{}
	}
	w := cmd.OutOrStdout()
	if !opts.json {
		if len(s.Calls) == 0 && s.SkippedCalls() == 0 {
			// "Skipped: none — every tool call replays" would contradict
			// the "nothing replayable" that follows.
			fmt.Fprintln(w, "Tool calls: none in this session.")
		} else {
			s.WriteSkipped(w)
		}
		s.WriteLines(w)
		if s.Lines.First != "" {
			where := opts.input
			if where == "-" {
				where = "standard input"
			}
			fmt.Fprintf(w, "First line not read: %s:%s\n", termtext.Line(where), termtext.Line(s.Lines.First))
		}
	}
	if len(s.Calls) == 0 {
		if opts.json {
			rep.Error = session.ErrNothingReplayable.Error()
			writeJSON(w, rep)
			return silentExit(exitFailed)
		}
		return &exitError{Code: exitFailed, Err: session.ErrNothingReplayable}
	}
	if err := compile.CheckOverwrite(out, opts.force); err != nil {
		return err
	}
	res, err := s.WriteSkill(name, observed, source, out)
	if err != nil {
		return err
	}
	if opts.json {
		rep.OK, rep.Summary = true, &res.Summary
		writeJSON(w, rep)
		return nil
	}
	fmt.Fprintln(w, session.ObservedLine(observed))
	if err := res.Summary.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, rep.Cost.Line())
	return nil
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
