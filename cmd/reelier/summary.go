package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reelier/reelier/runtime/receipt"
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
became of the receipt. The verdict is one of passed, failed, unchecked (no
step checked anything: never a pass) and interrupted.

When RUNS_FILE does not exist, or holds no readable record, the summary
says that no run record was written — no invented numbers — and points at
the replay's log. When its newest line is not a readable record (a run
stopped while writing it), the summary says the newest record is
unreadable, with the line and the reason, and shows no older verdict.

With --skill, only that file's runs count (two skill files that share a
frontmatter name share a history file; each record names its file).

--push is one of: pushed, failed, skipped-no-key (no key configured),
not-attempted (the replay failed, so nothing was pushed).

Exit status: 0 when the summary was written (whatever the run's verdict);
2 for usage errors and a RUNS_FILE that exists but cannot be read.

Examples:
  reelier summary .reelier/runs/weekly-bookings.jsonl
  reelier summary .reelier/runs/weekly-bookings.jsonl --push pushed >> "$GITHUB_STEP_SUMMARY"
  reelier summary --skill skills/weekly-bookings.skill.md "$RUNS_DIR/weekly-bookings.jsonl"`

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
	if statuses := receipt.PushStatuses(); opts.push != "" && !slices.Contains(statuses, opts.push) {
		return usageErrorf("--push %q: want one of %s", opts.push, strings.Join(statuses, ", "))
	}
	s := receipt.Summary{Path: opts.path, Skill: opts.skill, Push: opts.push}
	data, err := os.ReadFile(opts.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return usageErrorf("%v", err)
	default:
		if s.History, err = runlog.Read(bytes.NewReader(data)); err != nil {
			return usageErrorf("%s: %v", opts.path, err)
		}
		if opts.skill != "" {
			// Files sharing a name share a history: show this file's run.
			s.History, _ = s.History.ForFile(filepath.ToSlash(opts.skill))
		}
	}
	return s.Markdown(cmd.OutOrStdout())
}
