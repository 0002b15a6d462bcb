package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/spf13/cobra"
)

const benchLong = `Summarise a skill's run history: how many runs, how many passed,
step outcomes, the level at which steps held (L0 plain replay, L1/L2
healed), escalation attempts against heals per level, LLM tokens spent and
what they cost as each run recorded it (see reelier cost: a model without
a price is counted apart as "price unknown", never $0), and step latency
p50/p95.

The history is <runs-dir>/<skill-name>.jsonl, the file reelier run appends
to; the skill's name comes from its frontmatter. Every count is derived from
the step outcomes of each record, so records written before 0.2.0 (whose
totals counted unchecked steps as passed) are read honestly without
migration. A line that is not a run record is reported on stderr, skipped
and counted; it never stops the summary.

With --json the summary is printed as one JSON object.

Exit status: 0 when the summary was printed (also for an empty or missing
history), 2 when the skill cannot be parsed or the history cannot be read.

Examples:
  reelier bench skills/weekly-bookings.skill.md
  reelier bench --json skills/weekly-bookings.skill.md | jq .passRate`

type benchOptions struct {
	path    string
	json    bool
	runsDir string
}

func newBenchCmd() *cobra.Command {
	var opts benchOptions
	cmd := &cobra.Command{
		Use:   "bench SKILL [--json]",
		Short: "Summarise a skill's run history",
		Long:  benchLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return benchRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print the summary as JSON")
	f.StringVar(&opts.runsDir, "runs-dir", runlog.DefaultDir, "read run records from `DIR`")
	return cmd
}

func benchRun(cmd *cobra.Command, opts benchOptions) error {
	skills, err := loadSkills(cmd, []string{opts.path})
	if err != nil {
		return err
	}
	name := skills[0].skill.Name()
	path := runlog.Path(opts.runsDir, name)
	hist, err := readHistory(path)
	if err != nil {
		return usageErrorf("reading the run history: %v", err)
	}
	errw := cmd.ErrOrStderr()
	for _, c := range hist.Corrupt {
		fmt.Fprintf(errw, "reelier bench: %s:%d: skipped a line that is not a run record: %v\n", path, c.Line, c.Err)
	}
	for _, e := range hist.Entries {
		if e.Inconsistent {
			fmt.Fprintf(errw, "reelier bench: %s:%d: stored totals disagree with the step outcomes; the outcomes are counted\n", path, e.Line)
		}
	}
	// Two files may share a frontmatter name and so a history file: count
	// only this file's runs (and those from before records named a file).
	hist, unattributed := hist.ForFile(filepath.ToSlash(skills[0].path))
	if unattributed > 0 {
		fmt.Fprintf(errw, "reelier bench: %d record(s) in %s predate file paths on records and are counted, though another file named %q may have written them\n", unattributed, path, name)
	}
	sum := runlog.Summarize(name, hist)
	out := cmd.OutOrStdout()
	if opts.json {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		return enc.Encode(sum)
	}
	writeBench(out, path, sum)
	return nil
}

// readHistory reads a history file; a missing file is an empty history.
func readHistory(path string) (*runlog.History, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &runlog.History{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return runlog.Read(f)
}

// costText is an amount of heal cost for a person: "$0.0027", with the
// tokens no price covered ("$0.0027 + price unknown for 1200 tokens"),
// or "price unknown for 1200 tokens" — never $0.00 for tokens of
// unknown price.
func costText(micros, unpriced int64) string {
	switch {
	case unpriced == 0:
		return cost.Micros(micros).String()
	case micros == 0:
		return fmt.Sprintf("price unknown for %d tokens", unpriced)
	}
	return fmt.Sprintf("%s + price unknown for %d tokens", cost.Micros(micros), unpriced)
}

func writeBench(w io.Writer, path string, s runlog.Summary) {
	fmt.Fprintf(w, "skill:          %s\n", s.Skill)
	fmt.Fprintf(w, "history:        %s\n", path)
	if s.Runs == 0 {
		fmt.Fprintf(w, "runs:           0 (no run recorded yet)\n")
	} else {
		config := ""
		if s.ConfigRuns > 0 {
			config = fmt.Sprintf(", %d config", s.ConfigRuns)
		}
		fmt.Fprintf(w, "runs:           %d (%d passed, %d failed%s, %d unchecked, %d interrupted), pass rate %.1f%%\n", s.Runs, s.PassedRuns, s.FailedRuns, config, s.UncheckedRuns, s.InterruptedRuns, 100*s.PassRate)
	}
	st := s.Steps
	fmt.Fprintf(w, "steps:          %d total: %d passed, %d unchecked, %d failed, %d skipped\n", st.Total, st.Passed, st.Unchecked, st.Failed, st.Skipped)
	fmt.Fprintf(w, "held at level:  L0=%d L1=%d L2=%d\n", s.HealedAt.L0, s.HealedAt.L1, s.HealedAt.L2)
	e := s.Escalation
	fmt.Fprintf(w, "escalation:     L1 %d attempted, %d healed; L2 %d attempted, %d healed\n", e.L1Attempts, e.L1Heals, e.L2Attempts, e.L2Heals)
	fmt.Fprintf(w, "LLM tokens:     %d (%d input, %d output)\n", s.LLMInputTokens+s.LLMOutputTokens, s.LLMInputTokens, s.LLMOutputTokens)
	fmt.Fprintf(w, "LLM cost:       %s\n", costText(s.LLMCostMicroUSD, s.LLMUnpricedTokens))
	fmt.Fprintf(w, "step latency:   p50 %dms, p95 %dms (over %d steps that ran)\n", s.Latency.P50, s.Latency.P95, s.Latency.Samples)
	if s.LegacyRecords > 0 {
		fmt.Fprintf(w, "legacy records: %d (pre-0.2.0; counts derived from their step outcomes)\n", s.LegacyRecords)
	}
	if s.InconsistentRecords > 0 {
		fmt.Fprintf(w, "inconsistent:   %d records whose stored totals disagree with their steps\n", s.InconsistentRecords)
	}
	if s.CorruptLines > 0 {
		fmt.Fprintf(w, "corrupt lines:  %d skipped\n", s.CorruptLines)
	}
}
