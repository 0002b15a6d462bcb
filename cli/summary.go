package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reelier/reelier/replay/receipt"
	"github.com/spf13/cobra"
)

const summaryLong = `Render run records as GitHub-flavoured Markdown, for a CI job summary
($GITHUB_STEP_SUMMARY) or a pull-request comment.

One history: RUNS_FILE is a run history (.reelier/runs/<skill>.jsonl); its
last record is shown. The summary holds the verdict exactly as recorded; a
totals table (steps, passed, unchecked, skipped, failed, duration) with the
reminder that an unchecked step ran without asserts and is never a pass;
LLM token totals, only when escalation actually ran; a collapsible table of
every step (outcome, healed level, duration, first failure); and, with
--push, what became of the receipt. The verdict is one of passed, failed,
unchecked (no step checked anything: never a pass) and interrupted.

When RUNS_FILE does not exist, or holds no readable record, the summary
says that no run record was written — no invented numbers — and points at
the replay's log. When its newest line is not a readable record (a run
stopped while writing it), the summary says the newest record is
unreadable, with the line and the reason, and shows no older verdict.
With --skill, only that file's runs count (two skill files that share a
frontmatter name share a history file; each record names its file).
--push is one of: pushed, failed, skipped-no-key, not-attempted.

A suite (what the GitHub Action uses): --runs-dir DIR and the skill files
(or folders) that were replayed; each file's newest record in DIR is
shown. --format says what to write:
  markdown      the job summary: the suite's verdict, one row per skill,
                then — outside any collapsible part — the failed steps at
                their file and line, the healed steps with the patch that
                must be committed (--patch), the skills that did not run
                with their parse errors; every step in a collapsible part;
                and, with --push and --push-policy, what became of the
                receipts. No runner temp path is shown.
  github        workflow commands: ::error at each failed step's line,
                ::warning at each healed step (parse errors are
                'reelier lint --format github''s)
  outputs       verdict=, passed=, healed= lines for $GITHUB_OUTPUT
  files         the skill files that left a record, one a line
  passed-files  the skill files whose run passed, one a line
In a suite, --push is one of: pushed, failed, skipped-no-key,
not-attempted.

Exit status: 0 when the summary was written (whatever the runs' verdicts);
2 for usage errors and a history that exists but cannot be read.

Examples:
  reelier summary .reelier/runs/weekly-bookings.jsonl
  reelier summary .reelier/runs/weekly-bookings.jsonl --push pushed >> "$GITHUB_STEP_SUMMARY"
  reelier summary --skill skills/weekly-bookings.skill.md "$RUNS_DIR/weekly-bookings.jsonl"
  reelier summary --runs-dir "$RUNS_DIR" --patch heal.patch skills/ >> "$GITHUB_STEP_SUMMARY"
  reelier summary --runs-dir "$RUNS_DIR" --format github skills/*.skill.md`

type summaryOptions struct {
	args       []string
	skill      string
	push       string
	runsDir    string
	format     string
	pushPolicy string
	patch      string
}

func newSummaryCmd() *cobra.Command {
	var opts summaryOptions
	cmd := &cobra.Command{
		Use:   "summary RUNS_FILE [--skill PATH] [--push STATUS] | --runs-dir DIR [--format F] SKILL…",
		Short: "Render run records as Markdown for a CI job summary",
		Long:  summaryLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if opts.runsDir != "" {
				return summarySuite(cmd, opts)
			}
			return summaryRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.skill, "skill", "", "the skill file that was replayed, named when there is no record")
	f.StringVar(&opts.push, "push", "", "what became of the receipt: pushed, failed, skipped-no-key or not-attempted")
	f.StringVar(&opts.runsDir, "runs-dir", "", "summarise a suite: the newest record of each SKILL in `DIR`")
	f.StringVar(&opts.format, "format", "markdown", "with --runs-dir: markdown, github, outputs, files or passed-files")
	f.StringVar(&opts.pushPolicy, "push-policy", "always", "with --runs-dir: the push policy the receipts line names (always, passed, never)")
	f.StringVar(&opts.patch, "patch", "", "with --runs-dir: the heal patch `FILE` to tell the reader to commit (shown by its base name)")
	return cmd
}

func summaryRun(cmd *cobra.Command, opts summaryOptions) error {
	if len(opts.args) != 1 {
		return usageErrorf("summary takes one RUNS_FILE (or --runs-dir DIR and the skill files)")
	}
	if statuses := receipt.PushStatuses(); opts.push != "" && !slices.Contains(statuses, opts.push) {
		return usageErrorf("--push %q: want one of %s", opts.push, strings.Join(statuses, ", "))
	}
	s, err := receipt.ReadSummary(opts.args[0], opts.skill, opts.push)
	if err != nil {
		return usageErrorf("%v", err)
	}
	return s.Markdown(cmd.OutOrStdout())
}

func summarySuite(cmd *cobra.Command, opts summaryOptions) error {
	if statuses := receipt.CIPushStatuses(); opts.push != "" && !slices.Contains(statuses, opts.push) {
		return usageErrorf("--push %q: want one of %s", opts.push, strings.Join(statuses, ", "))
	}
	if !slices.Contains([]string{"always", "passed", "never"}, opts.pushPolicy) {
		return usageErrorf("--push-policy %q: want always, passed or never", opts.pushPolicy)
	}
	files, err := expandSkillPaths(opts.args)
	if err != nil {
		return err
	}
	r, err := receipt.LoadCIReport(opts.runsDir, files)
	if err != nil {
		return usageErrorf("%v", err)
	}
	r.Push, r.PushPolicy, r.Patch = opts.push, opts.pushPolicy, opts.patch
	w := cmd.OutOrStdout()
	switch opts.format {
	case "markdown":
		return r.Markdown(w)
	case "github":
		return r.Annotations(w)
	case "outputs":
		return r.Outputs(w)
	case "files", "passed-files":
		for _, f := range r.Files(opts.format == "passed-files") {
			fmt.Fprintln(w, f)
		}
		return nil
	}
	return usageErrorf("--format %q: want markdown, github, outputs, files or passed-files", opts.format)
}
