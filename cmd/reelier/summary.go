package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/reelier/reelier/runtime/runlog"
	"github.com/spf13/cobra"
)

const summaryLong = `Render a skill's latest run record as GitHub-flavoured Markdown, for a
CI job summary ($GITHUB_STEP_SUMMARY) or a pull-request comment. RUNS_FILE
is a run history (.reelier/runs/<skill>.jsonl); its last record is shown.

The summary holds the verdict exactly as recorded; a totals table (steps,
passed, unchecked, skipped, failed, duration) with the reminder that an
unchecked step ran without asserts and is never a pass; LLM token totals,
only when escalation actually ran; a collapsible table of every step
(outcome, healed level, duration, first failure); and, with --push, what
became of the receipt. A run that passed without verifying anything says
so in its heading.

When RUNS_FILE does not exist, or holds no readable record, the summary
says that no run record was written — no invented numbers — and points at
the replay's log.

--push is one of: pushed, failed, skipped-no-key (no key configured),
not-attempted (the replay failed, so nothing was pushed).

Exit status: 0 when the summary was written (whatever the run's verdict);
2 for usage errors and a RUNS_FILE that exists but cannot be read.

Examples:
  reelier summary .reelier/runs/weekly-bookings.jsonl
  reelier summary .reelier/runs/weekly-bookings.jsonl --push pushed >> "$GITHUB_STEP_SUMMARY"
  reelier summary --skill skills/weekly-bookings.skill.md "$RUNS_DIR/weekly-bookings.jsonl"`

// The --push values.
var pushStatuses = map[string]string{
	"pushed":         "pushed to the receipt ledger.",
	"failed":         "**the push failed** — the replay's verdict stands; the push step's log above says why, and the next push resumes from its cursor.",
	"skipped-no-key": "not pushed: no cloud key is configured (local-only run).",
	"not-attempted":  "not pushed: the replay did not pass, so no push was attempted.",
}

type summaryOptions struct {
	path  string
	skill string
	push  string
}

func newSummaryCmd() *cobra.Command {
	var opts summaryOptions
	cmd := &cobra.Command{
		Use:   "summary RUNS_FILE [--skill PATH] [--push STATUS]",
		Short: "Render a run record as Markdown for a CI job summary",
		Long:  summaryLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return summaryRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.skill, "skill", "", "the skill file that was replayed, named when there is no record")
	f.StringVar(&opts.push, "push", "", "what became of the receipt: pushed, failed, skipped-no-key or not-attempted")
	return cmd
}

func summaryRun(cmd *cobra.Command, opts summaryOptions) error {
	if _, ok := pushStatuses[opts.push]; opts.push != "" && !ok {
		return usageErrorf("--push %q: want one of %s", opts.push, strings.Join(slices.Sorted(maps.Keys(pushStatuses)), ", "))
	}
	s := &summary{path: opts.path, skill: opts.skill, push: opts.push}
	data, err := os.ReadFile(opts.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return usageErrorf("%v", err)
	default:
		if s.history, err = runlog.Read(bytes.NewReader(data)); err != nil {
			return usageErrorf("%s: %v", opts.path, err)
		}
	}
	_, err = io.WriteString(cmd.OutOrStdout(), s.markdown())
	return err
}

// summary renders one run history's latest record.
type summary struct {
	path, skill, push string
	// history is nil when the file does not exist.
	history *runlog.History
	b       strings.Builder
}

func (s *summary) printf(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// markdown renders the summary.
func (s *summary) markdown() string {
	if s.history == nil || len(s.history.Entries) == 0 {
		s.noRecord()
	} else {
		s.record(s.history.Entries[len(s.history.Entries)-1])
	}
	s.pushLine()
	return s.b.String()
}

// noRecord says plainly that there is nothing to show.
func (s *summary) noRecord() {
	s.printf("## ⚠️ Reelier replay: no run record was written\n\n")
	what := "The replay"
	if s.skill != "" {
		what = "The replay of " + code(s.skill)
	}
	switch {
	case s.history == nil:
		s.printf("%s left no run record (%s does not exist), so there is no verdict and there are no numbers to show. ", what, code(s.path))
	default:
		s.printf("%s left no readable run record: %s holds %d line(s), none of them a run record, so there is no verdict and there are no numbers to show. ", what, code(s.path), len(s.history.Corrupt))
	}
	s.printf("This happens when the skill file is missing or does not parse, or the run never started. The replay step's log above says what went wrong.\n")
}

// record renders a run record.
func (s *summary) record(e runlog.Entry) {
	r := e.Record
	t := runlog.CountSteps(r.Steps)
	switch {
	case !r.Passed:
		s.printf("## ❌ Reelier replay failed: %s\n\n", code(r.Skill))
	case t.Passed == 0:
		s.printf("## ⚠️ Reelier replay passed, but nothing was verified: %s\n\n", code(r.Skill))
	default:
		s.printf("## ✅ Reelier replay passed: %s\n\n", code(r.Skill))
	}
	s.printf("| steps | passed | unchecked | skipped | failed | duration |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n")
	s.printf("| %d | %d | %d | %d | %d | %s |\n\n", t.Steps, t.Passed, t.Unchecked, t.Skipped, t.Failed, duration(t.Ms))
	if t.Unchecked > 0 {
		s.printf("> **Unchecked is not passed.** %d step(s) ran without asserts: they ran without incident, but nothing about their results was verified, so they are not counted as passed.\n\n", t.Unchecked)
	}
	switch {
	case e.Legacy:
		s.printf("> This record was written before honest totals existed; the counts above are derived from its steps.\n\n")
	case e.Inconsistent:
		s.printf("> The totals stored in this record do not match its steps; the counts above are derived from the steps.\n\n")
	}
	s.tokens(r.Steps, t)
	s.steps(r.Steps)
	s.printf("<sub>Run record %d of %d in %s · started %s · finished %s</sub>\n", len(s.history.Entries), len(s.history.Entries), code(s.path), esc(r.StartedAt), esc(r.FinishedAt))
	if n := len(s.history.Corrupt); n > 0 {
		s.printf("\n> %d line(s) of %s are not run records and were skipped.\n", n, code(s.path))
	}
}

// tokens reports LLM use, and only when escalation ran: a 0 would read as
// "escalation was considered and cost nothing".
func (s *summary) tokens(steps []runlog.StepRecord, t runlog.Totals) {
	escalated, healed := 0, 0
	for _, st := range steps {
		if st.LLM != nil || st.EscalationAttempted != nil {
			escalated++
		}
		if st.Level > 0 {
			healed++
		}
	}
	if escalated == 0 {
		return
	}
	s.printf("**LLM tokens:** %d input · %d output — escalation ran on %d step(s), %d healed.\n\n", t.LLMInputTokens, t.LLMOutputTokens, escalated, healed)
}

// outcomeMark is how each outcome shows in the step table.
var outcomeMark = map[runlog.Outcome]string{
	runlog.Passed: "✅ passed", runlog.Unchecked: "⚪ unchecked", runlog.Failed: "❌ failed", runlog.Skipped: "⏭️ skipped",
}

// steps renders the collapsible per-step table.
func (s *summary) steps(steps []runlog.StepRecord) {
	s.printf("<details>\n<summary>Steps (%d)</summary>\n\n", len(steps))
	s.printf("| # | step | outcome | healed at | duration | note |\n| ---: | --- | --- | --- | ---: | --- |\n")
	for _, st := range steps {
		level, dur, note := "—", duration(st.Ms), ""
		switch st.Outcome {
		case runlog.Skipped:
			dur, note = "—", "not run: an earlier step failed"
		case runlog.Unchecked:
			note = "no asserts: it ran, nothing was verified"
		case runlog.Failed:
			if len(st.Failures) > 0 {
				note = clip(st.Failures[0])
			}
		}
		if st.Level > 0 {
			level = fmt.Sprintf("L%d", st.Level)
			if st.Why != nil && st.Why.Change != "" {
				note = clip(st.Why.Change)
			}
		}
		if st.EscalationAttempted != nil && st.Level == 0 {
			level = fmt.Sprintf("not healed (tried L%d)", *st.EscalationAttempted)
		}
		s.printf("| %d | %s | %s | %s | %s | %s |\n", st.N, esc(st.Title), outcomeMark[st.Outcome], level, dur, esc(note))
	}
	s.printf("\n</details>\n\n")
}

// pushLine says what became of the receipt, when the caller said.
func (s *summary) pushLine() {
	if s.push == "" {
		return
	}
	s.printf("\n**Receipt:** %s\n", pushStatuses[s.push])
}

// duration renders milliseconds for people.
func duration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// maxNote is the longest failure note shown in a table cell.
const maxNote = 200

// clip shortens a note to maxNote characters.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxNote {
		return s
	}
	return string(r[:maxNote]) + "…"
}

// escaper makes tags inert and escapes what Markdown would read as
// formatting or a table border, in one pass.
var escaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "~", `\~`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// esc makes recorded text — titles, failures quoting response bodies —
// safe inside a Markdown table: no HTML, no formatting, one line.
func esc(s string) string { return escaper.Replace(s) }

// code renders text as inline code, escaped like any other cell: a
// backtick in a name cannot end the span early.
func code(s string) string { return "<code>" + esc(s) + "</code>" }
