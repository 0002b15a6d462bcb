package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// exitRow is one command's exit statuses and what each means for it.
type exitRow struct {
	cmd   string
	codes []exitCell
}

// exitCell is one status a command can return and its meaning there.
type exitCell struct {
	code    int
	meaning string
}

// exitTable is every command's row of the one exit-status table: what
// `reelier help exit-status` prints, each command's --help ends with, and
// README's "Exit codes" and SPEC.md §14 "Exit statuses of every command"
// hold (TestExitStatusTable); the scripts in testdata are held to it
// (TestExitStatusesExercised). Every command also exits 2 on a flag or
// argument it does not take.
var exitTable = []exitRow{
	{"parse", []exitCell{{exitOK, "the files parse"}, {exitUsage, "a file does not parse or cannot be read"}}},
	{"fmt", []exitCell{{exitOK, "formatted (or already canonical)"}, {exitFailed, "--check or -d: a file is not canonical"}, {exitUsage, "a file cannot be read or does not parse"}}},
	{"lint", []exitCell{{exitOK, "no error-severity finding"}, {exitFailed, "an error-severity finding"}, {exitUsage, "a file does not parse or cannot be read; an unknown rule or format; a bad configuration"}}},
	{"lsp", []exitCell{{exitOK, "shutdown and exit, or input closed"}, {exitFailed, "exit without shutdown"}, {exitUsage, "a broken frame"}}},
	{"approve", []exitCell{{exitOK, "approved (or already approved)"}, {exitUsage, "a file that cannot be read, parsed or written; no such step; no write step"}}},
	{"run", []exitCell{{exitOK, "every verdict passed or unchecked"}, {exitFailed, "a check did not hold or tools drifted (drift); --fail-on-unchecked, --fail-on-open-questions"}, {exitUsage, "a skill that cannot run: unreadable, unparseable, missing inputs; a refused write, approval or policy (verdict config); a bad --fail; a policy with no reelier-seatbelt program to run it in; a prices file with a mistake when the run may escalate"}, {exitTool, "a server or the environment failed: could not start, crashed, timed out; a record not written"}, {exitInterrupted, "interrupted (Ctrl-C, SIGTERM)"}}},
	{"calibrate", []exitCell{{exitOK, "calibrated (whatever it found)"}, {exitUsage, "a skill that does not parse; missing inputs"}, {exitTool, "a server could not start; the skill could not be rewritten"}, {exitInterrupted, "interrupted (Ctrl-C, SIGTERM)"}}},
	{"bench", []exitCell{{exitOK, "the summary was printed"}, {exitUsage, "the skill does not parse or the history cannot be read"}}},
	{"diff", []exitCell{{exitOK, "every step SAME"}, {exitFailed, "a step DRIFTED"}, {exitUsage, "a file that cannot be read, a bad trace line, fewer than two runs"}}},
	{"compile", []exitCell{{exitOK, "the skill was written"}, {exitUsage, "a trace that cannot be read or has no calls; an output file that exists or cannot be written"}}},
	{"mcp", []exitCell{{exitOK, "the client disconnected, or SIGINT (HTTP)"}, {exitFailed, "a --wrap server could not start; the trace could not be finished"}, {exitUsage, "bad flags; a policy that does not load or no reelier-seatbelt program to run it in"}}},
	{"mock", []exitCell{{exitOK, "the client disconnected, or SIGINT (HTTP)"}, {exitFailed, "serving failed"}, {exitUsage, "a trace that cannot be read; a bad --match, --ignore-arg or --fail"}}},
	{"trace", []exitCell{{exitOK, "every line is a record"}, {exitUsage, "a line that is not a record; a file that cannot be read"}}},
	{"push", []exitCell{{exitOK, "every record pushed (or not sent: --fail)"}, {exitFailed, "the ledger rejected a record, or the push stopped early"}, {exitUsage, "a missing variable, an unparseable skill, no run history"}}},
	{"ledger", []exitCell{{exitOK, "served until SIGINT; a key made, listed or revoked"}, {exitFailed, "the store could not be opened or written; serving failed"}, {exitUsage, "bad flags or names; a non-loopback --addr without a key"}}},
	{"from-session", []exitCell{{exitOK, "the skill was written"}, {exitFailed, "the session has no replayable call"}, {exitUsage, "an unreadable transcript; an output file that exists"}}},
	{"scan", []exitCell{{exitOK, "scanned; every chosen skill written"}, {exitFailed, "a chosen session could not be compiled"}, {exitUsage, "a --dir that cannot be read"}}},
	{"install", []exitCell{{exitOK, "the config was rewritten (or needed nothing)"}, {exitFailed, "no config, or it could not be written"}, {exitUsage, "a config that is not valid JSON (TOML for codex)"}}},
	{"uninstall", []exitCell{{exitOK, "a backup was restored"}, {exitFailed, "no backup, or it could not be written"}, {exitUsage, "bad flags"}}},
	{"init", []exitCell{{exitOK, "the demo replay passed"}, {exitFailed, "recording or replay failed"}, {exitUsage, "bad flags"}}},
	{"serve", []exitCell{{exitOK, "the client disconnected, or SIGINT (HTTP)"}, {exitFailed, "serving failed"}, {exitUsage, "a non-loopback --http without a token"}}},
	{"summary", []exitCell{{exitOK, "the summary was written"}, {exitUsage, "a history that cannot be read"}}},
	{"ci", []exitCell{{exitOK, "the workflow was written; ci comment: posted, updated, skipped, or refused by the API (a warning)"}, {exitUsage, "the file exists; no skill; a skill that does not parse; an untrusted or local server; a writing step not decided (--allow-writes, --yes, --no-writes); ci comment: no --runs-dir, an event file that cannot be read"}, {exitTool, "the file could not be written (a folder that is not writable)"}}},
	{"key", []exitCell{{exitOK, "the key was written"}, {exitUsage, "a key already there; a file that could not be written"}}},
	{"verify", []exitCell{{exitOK, "verified"}, {exitFailed, "not verified (the reason is printed)"}, {exitUsage, "a missing or unreadable file; a bundle or key that is not what it must be"}}},
	{"cost", []exitCell{{exitOK, "the costs were printed (none is a cost of $0.00)"}, {exitUsage, "a bad --since; a path where a skill name goes; a run history or prices file that cannot be read"}}},
	{"policy", []exitCell{{exitOK, "check: clean; test: every call allowed; from-skill: written"}, {exitFailed, "check: a mistake; test: a call would be denied"}, {exitUsage, "nothing to check; a file that cannot be read; a policy that does not load; no reelier-seatbelt program"}}},
}

// exitCodes are the statuses, in the table's column order.
var exitCodes = []int{exitOK, exitFailed, exitUsage, exitTool, exitInterrupted}

// exitRowOf returns the command's row.
func exitRowOf(cmd string) (exitRow, bool) {
	for _, r := range exitTable {
		if r.cmd == cmd {
			return r, true
		}
	}
	return exitRow{}, false
}

// meaning is what code means for the row's command; "" when it never
// returns it.
func (r exitRow) meaning(code int) string {
	for _, c := range r.codes {
		if c.code == code {
			return c.meaning
		}
	}
	return ""
}

// exitTableMarkdown is the table as README and SPEC.md print it.
func exitTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| command |")
	for _, c := range exitCodes {
		fmt.Fprintf(&b, " %d |", c)
	}
	b.WriteString("\n| --- |")
	for range exitCodes {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range exitTable {
		fmt.Fprintf(&b, "| `%s` |", r.cmd)
		for _, c := range exitCodes {
			m := r.meaning(c)
			if m == "" {
				m = "—"
			}
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// exitRowText is a command's row as its --help ends with it.
func exitRowText(r exitRow) string {
	var b strings.Builder
	b.WriteString("Exit statuses (reelier help exit-status has every command's):")
	for _, c := range r.codes {
		fmt.Fprintf(&b, "\n  %-4d %s", c.code, c.meaning)
	}
	return b.String()
}

const exitStatusIntro = `Every reelier command exits with one of five statuses, the same numbers
everywhere (internal/exitstatus):

  0    ok
  1    a finding: a check failed or drifted, a difference, a rejection
  2    usage or bad input, or a run its set-up stopped
  3    a server or the environment failed
  130  interrupted (Ctrl-C, SIGTERM)

What each command returns, and what each status means for it (every
command also exits 2 on a flag or argument it does not take):
`

// exitStatusHelp is the text of reelier help exit-status.
func exitStatusHelp() string {
	var b strings.Builder
	b.WriteString(exitStatusIntro)
	for _, r := range exitTable {
		fmt.Fprintf(&b, "\n  %s\n", r.cmd)
		for _, c := range r.codes {
			fmt.Fprintf(&b, "    %-4d %s\n", c.code, c.meaning)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// newExitStatusTopic is the help topic `reelier help exit-status`: a
// command that does not run, so help lists it under "Additional help
// topics".
func newExitStatusTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-status",
		Short: "The exit statuses of every command",
		Long:  exitStatusHelp(),
	}
}

// withExitRow ends the command's --help with its row of the table.
func withExitRow(c *cobra.Command) {
	if r, ok := exitRowOf(c.Name()); ok {
		c.Long = strings.TrimRight(c.Long, "\n") + "\n\n" + exitRowText(r)
	}
}
