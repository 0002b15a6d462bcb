package cli

import (
	"github.com/reelier/reelier/replay/diff"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/spf13/cobra"
)

const diffLong = `Compare two replays, or a recording and a replay, step by step. Each
step is SAME or DRIFTED; a drifted step lists what differs, by JSON path:

  DRIFTED   2  get_item  Read it back
               json.status: "open" → "closed"

Two traces (a recording from reelier mcp, a replay from
reelier run --trace, or any two): calls are lined up by tool, and each
pair's arguments and results are compared as the skill sees a result —
its status, then its json document or its body text.

One skill (a skill file, a skill name, or a file of run records): its last
two run records from --runs-dir, or the two picked with --run N --run M
(1 is the oldest run, -1 the newest). A run record keeps the filled
arguments, the values binds took and a digest of each result, not the
result itself: a result that changed is DRIFTED without paths. Two files of
run records (reelier run --json > a.jsonl) compare their last runs.

With the skill at hand (--skill FILE, the skill given, or the file a run
record names), a value the skill only type-checks (json.id is string,
json.x is set) is compared by type: a new id is not drift, a number where a
string was is. Such value changes are listed as "ignored".

Text of several lines (a body, a listing in a JSON string) is shown as a
line diff under its change. A result value that changes on every run — a
date-time, a duration, a request id or UUID, or text lines that differ
only in their times — is listed as "volatile" and does not make its step
DRIFTED (docs/replay.md §11).

Exit status: 0 when every step is SAME, 1 when a step DRIFTED, 2 for bad
input (a file that cannot be read, a bad trace line, fewer than two runs).

Examples:
  reelier diff .reelier/traces/crm-1.jsonl replay.jsonl
  reelier diff --skill crm.skill.md .reelier/traces/crm-1.jsonl replay.jsonl
  reelier diff skills/crm.skill.md
  reelier diff crm --run 1 --run -1
  reelier diff --json skills/crm.skill.md | jq '.steps[] | select(.verdict=="DRIFTED")'`

type diffOptions struct {
	in   diff.Input
	json bool
}

func newDiffCmd() *cobra.Command {
	var opts diffOptions
	cmd := &cobra.Command{
		Use:   "diff TRACE TRACE | SKILL [--run N --run M] [flags]",
		Short: "Compare two runs or traces step by step: SAME or DRIFTED",
		Long:  diffLong,
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.in.Args = args
			return diffRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.IntSliceVar(&opts.in.Runs, "run", nil, "compare run `N` of the skill's history (give it twice; 1 is the oldest, -1 the newest)")
	f.StringVar(&opts.in.RunsDir, "runs-dir", runlog.DefaultDir, "read run records from `DIR`")
	f.StringVar(&opts.in.Skill, "skill", "", "read which values are type-only from the skill `FILE`")
	f.BoolVar(&opts.json, "json", false, "print the comparison as one JSON object")
	return cmd
}

func diffRun(cmd *cobra.Command, opts diffOptions) error {
	rep, err := diff.Load(opts.in)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if opts.json {
		if err := rep.WriteJSON(cmd.OutOrStdout()); err != nil {
			return err
		}
	} else {
		rep.WriteText(cmd.OutOrStdout())
	}
	if rep.Drifted() {
		return silentExit(exitFailed)
	}
	return nil
}
