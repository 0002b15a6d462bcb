package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/spf13/cobra"
)

const costLong = `Add up what heals cost, per skill, from the run history
(<runs-dir>/<skill>.jsonl, the files reelier run appends to): a replay at
Level 0 calls no model and costs nothing; a step that escalated (Level 1
or 2) spent LLM tokens, which its run record prices at the time of the
run.

Prices come from Reelier's price table — per model, US dollars per
million input, output, cache-read and cache-write tokens, with the date
the prices were taken and where from (reelier cost --prices prints it) —
and your own file over it: reelier/prices.json under your configuration
folder ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application
Support on macOS, %AppData% on Windows), the same shape, merged by model
name:

  {"taken": "2026-12-01",
   "models": {"claude-sonnet-5": {"input": "3", "output": "15",
                                  "cacheRead": "0.30", "cacheWrite": "3.75"}}}

A model named with a snapshot date (claude-haiku-4-5-20251001) takes its
base name's price. A model the table has no price for is "price unknown",
never $0: its tokens are counted apart. Amounts are exact (micro-dollars,
rounded half up once per model and step), never floating point. A
malformed price file stops the commands that price (run with
--max-level 1 or 2, from-session, cost --prices) with its
path:line:col.

SKILL limits the sum to one skill (its name, as in the history's file
name); --since DATE (YYYY-MM-DD, UTC) to the runs that started on or
after it. --json prints the figures as JSON.

Exit status: 0 when the figures were printed (also for no history); 2
for usage errors, a --since that is not a date, a run history or price
file that cannot be read.

Examples:
  reelier cost
  reelier cost weekly-bookings --since 2026-07-01
  reelier cost --json | jq .total.costMicroUsd
  reelier cost --prices`

type costOptions struct {
	skill   string
	since   string
	json    bool
	prices  bool
	runsDir string
}

func newCostCmd() *cobra.Command {
	var opts costOptions
	cmd := &cobra.Command{
		Use:   "cost [SKILL] [--since DATE] [--json]",
		Short: "Add up what heals cost, per skill, from the run history",
		Long:  costLong,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.skill = args[0]
			}
			return costRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.since, "since", "", "count only runs that started on or after `DATE` (YYYY-MM-DD, UTC)")
	f.BoolVar(&opts.json, "json", false, "print the figures as JSON")
	f.BoolVar(&opts.prices, "prices", false, "print the price table in force (Reelier's, with your file over it) and exit")
	f.StringVar(&opts.runsDir, "runs-dir", runlog.DefaultDir, "read run records from `DIR`")
	return cmd
}

// skillCost is one skill's heal cost.
type skillCost struct {
	Skill string `json:"skill"`
	// Runs counted; HealedSteps of their steps escalated.
	Runs            int   `json:"runs"`
	EscalatedSteps  int   `json:"escalatedSteps"`
	LLMInputTokens  int64 `json:"llmInputTokens"`
	LLMOutputTokens int64 `json:"llmOutputTokens"`
	// CostMicroUSD is the known cost in millionths of a US dollar;
	// UnpricedTokens the tokens whose cost is unknown, left out of it.
	CostMicroUSD   int64  `json:"costMicroUsd"`
	UnpricedTokens int64  `json:"unpricedTokens"`
	Cost           string `json:"cost"`
}

func (c *skillCost) add(rec *runlog.Record) {
	c.Runs++
	for _, st := range rec.Steps {
		if st.LLM == nil {
			continue
		}
		c.EscalatedSteps++
		c.LLMInputTokens += st.LLM.InputTokens
		c.LLMOutputTokens += st.LLM.OutputTokens
		m, u := st.LLM.Cost()
		c.CostMicroUSD += m
		c.UnpricedTokens += u
	}
}

func (c *skillCost) sum(o skillCost) {
	c.Runs += o.Runs
	c.EscalatedSteps += o.EscalatedSteps
	c.LLMInputTokens += o.LLMInputTokens
	c.LLMOutputTokens += o.LLMOutputTokens
	c.CostMicroUSD += o.CostMicroUSD
	c.UnpricedTokens += o.UnpricedTokens
}

// costReport is the --json output.
type costReport struct {
	RunsDir string      `json:"runsDir"`
	Since   string      `json:"since,omitempty"`
	Skills  []skillCost `json:"skills"`
	Total   skillCost   `json:"total"`
}

func costRun(cmd *cobra.Command, opts costOptions) error {
	w := cmd.OutOrStdout()
	if opts.prices {
		prices, err := cost.Load()
		if err != nil {
			return usageErrorf("the price table: %v", err)
		}
		writePrices(w, prices)
		return nil
	}
	var since time.Time
	if opts.since != "" {
		t, err := time.Parse(time.DateOnly, opts.since)
		if err != nil {
			return usageErrorf("--since %s: not a date; write YYYY-MM-DD (UTC)", termtext.Line(opts.since))
		}
		since = t
	}
	files, err := costHistories(opts)
	if err != nil {
		return err
	}
	rep := costReport{RunsDir: opts.runsDir, Since: opts.since, Skills: []skillCost{}, Total: skillCost{Skill: "total"}}
	errw := cmd.ErrOrStderr()
	for _, path := range files {
		hist, err := readHistory(path)
		if err != nil {
			return usageErrorf("reading the run history: %v", err)
		}
		for _, c := range hist.Corrupt {
			fmt.Fprintf(errw, "reelier cost: %s:%d: skipped a line that is not a run record: %v\n", path, c.Line, c.Err)
		}
		sc := skillCost{Skill: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
		for _, e := range hist.Entries {
			if !since.IsZero() {
				started, err := time.Parse(time.RFC3339Nano, e.Record.StartedAt)
				if err != nil || started.Before(since) {
					continue
				}
			}
			sc.add(&e.Record)
		}
		if sc.Runs == 0 {
			continue
		}
		sc.Cost = costText(sc.CostMicroUSD, sc.UnpricedTokens)
		rep.Skills = append(rep.Skills, sc)
		rep.Total.sum(sc)
	}
	// The dearest first; then by name.
	sort.SliceStable(rep.Skills, func(i, j int) bool {
		a, b := rep.Skills[i], rep.Skills[j]
		if a.CostMicroUSD != b.CostMicroUSD {
			return a.CostMicroUSD > b.CostMicroUSD
		}
		return a.Skill < b.Skill
	})
	rep.Total.Cost = costText(rep.Total.CostMicroUSD, rep.Total.UnpricedTokens)
	if opts.json {
		writeJSON(w, rep)
		return nil
	}
	writeCost(w, rep)
	return nil
}

// costHistories lists the history files to read: SKILL's, or every one
// in the runs folder.
func costHistories(opts costOptions) ([]string, error) {
	if opts.skill != "" {
		if strings.ContainsAny(opts.skill, `/\`) || strings.HasSuffix(opts.skill, ".md") {
			return nil, usageErrorf("%s: name the skill (its frontmatter name, as in %s/<name>.jsonl), not its file", termtext.Line(opts.skill), opts.runsDir)
		}
		path := runlog.Path(opts.runsDir, opts.skill)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(opts.runsDir, "*.jsonl"))
	if err != nil {
		return nil, usageErrorf("reading %s: %v", opts.runsDir, err)
	}
	sort.Strings(files)
	return files, nil
}

func writeCost(w io.Writer, rep costReport) {
	where := rep.RunsDir
	if rep.Since != "" {
		where += ", runs since " + rep.Since
	}
	if len(rep.Skills) == 0 {
		fmt.Fprintf(w, "No runs in %s: nothing has cost anything yet.\n", termtext.Line(where))
		return
	}
	fmt.Fprintf(w, "Heal cost by skill (%s):\n", termtext.Line(where))
	width := 0
	for _, s := range rep.Skills {
		width = max(width, len(termtext.Line(s.Skill)))
	}
	for _, s := range rep.Skills {
		fmt.Fprintf(w, "  %-*s  %s · %s escalated · %d LLM tokens · %s\n", width, termtext.Line(s.Skill),
			plural(s.Runs, "run"), plural(s.EscalatedSteps, "step"), s.LLMInputTokens+s.LLMOutputTokens, s.Cost)
	}
	fmt.Fprintf(w, "Total: %s over %s; a run at Level 0 costs nothing.\n", rep.Total.Cost, plural(rep.Total.Runs, "run"))
	if rep.Total.UnpricedTokens > 0 {
		fmt.Fprintln(w, "Price unknown: a model with no price in the table (reelier cost --prices), or a run recorded before costs were; add the model to your prices file to price future runs.")
	}
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writePrices prints the price table in force.
func writePrices(w io.Writer, t *cost.Table) {
	fmt.Fprintf(w, "Reelier's price table, taken %s from %s.\n", t.Taken, t.Source)
	if p, err := cost.UserPath(); err == nil {
		fmt.Fprintf(w, "Your file over it: %s (merged by model name, when it exists).\n", termtext.Line(p))
	}
	fmt.Fprintln(w, "US dollars per million tokens: input, output, cache read, cache write (– no price).")
	for _, m := range t.Models() {
		p, _ := t.Lookup(m)
		fmt.Fprintf(w, "  %-22s %8s %8s %8s %8s  (%s)\n", termtext.Line(m), cost.Decimal(p.Input), cost.Decimal(p.Output), cost.Decimal(p.CacheRead), cost.Decimal(p.CacheWrite), termtext.Line(p.From))
	}
}
