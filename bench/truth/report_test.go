package truth

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
)

// benchTotals are the figures the issue asks for.
type benchTotals struct {
	Stable, StableOK       int // stable replays; those that passed sending what the agent sent
	FalseAlarms            int // replays that should pass and failed
	Drift, Caught, Follows int // relevant drift and non-re-runnable re-runs; caught; followed
	SilentWrong            int // replays that passed while doing what a correct run does not
	Errors                 int // scenarios the bench could not judge
	Scenarios              int
	MildEffects            int // skills gated more mildly than their calls need
}

func totals(reports []workflowReport) benchTotals {
	var tot benchTotals
	for _, rep := range reports {
		if rep.Milder != "" {
			tot.MildEffects++
		}
		for _, r := range rep.Results {
			tot.Scenarios++
			if r.Kind == "stable" {
				tot.Stable++
				if r.Verdict == "ok" {
					tot.StableOK++
				}
			}
			if r.Expect != "pass" {
				tot.Drift++
			}
			switch r.Verdict {
			case "false-alarm":
				tot.FalseAlarms++
			case "silent-wrong-pass":
				tot.SilentWrong++
			case "caught":
				tot.Caught++
			case "followed":
				tot.Follows++
			case "error":
				tot.Errors++
			}
		}
	}
	return tot
}

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func (t benchTotals) stableRate() float64 { return rate(t.StableOK, t.Stable) }
func (t benchTotals) driftRate() float64  { return rate(t.Caught+t.Follows, t.Drift) }
func (t benchTotals) stableFigure() string {
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*t.stableRate(), t.StableOK, t.Stable)
}
func (t benchTotals) driftFigure() string {
	return fmt.Sprintf("%.0f%% (%d/%d: %d caught, %d followed)", 100*t.driftRate(), t.Caught+t.Follows, t.Drift, t.Caught, t.Follows)
}

func (t benchTotals) lines() []string {
	return []string{
		fmt.Sprintf("stable pass rate:          %s  (target 100%%)", t.stableFigure()),
		fmt.Sprintf("false alarms:              %d  (target 0)", t.FalseAlarms),
		fmt.Sprintf("drift caught or followed:  %s  (target ≥ 95%%)", t.driftFigure()),
		fmt.Sprintf("silent wrong passes:       %d  (target 0)", t.SilentWrong),
		fmt.Sprintf("effects milder than calls: %d  (target 0)", t.MildEffects),
		fmt.Sprintf("scenarios:                 %d (%d could not be judged)", t.Scenarios, t.Errors),
	}
}

func renderText(reports []workflowReport, tot benchTotals) string {
	var sb strings.Builder
	sb.WriteString("\nTruth bench: compiled skills replayed against the real npm MCP servers\n\n")
	for _, rep := range reports {
		fmt.Fprintf(&sb, "%s (%s): %s\n", rep.Spec.Name, rep.Spec.Server, skillLine(rep))
		w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "  scenario\tkind\texpected\toutcome\tverdict\tnote")
		for _, r := range rep.Results {
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, r.Expect, clip(r.Outcome, 70), r.Verdict, r.Note)
		}
		w.Flush()
		sb.WriteString("\n")
	}
	for _, l := range tot.lines() {
		sb.WriteString(l + "\n")
	}
	return sb.String()
}

func skillLine(rep workflowReport) string {
	if rep.Err != "" {
		return "no skill: " + clip(rep.Err, 120)
	}
	rerun := "not re-runnable"
	if rep.Spec.Rerunnable {
		rerun = "re-runnable"
	}
	needs := rep.Needs
	if rep.Milder != "" {
		needs += " (too mild: its calls need " + rep.Spec.Needs + ")"
	}
	return fmt.Sprintf("%d steps, needs %s, %s", rep.Steps, needs, rerun)
}

func renderMarkdown(reports []workflowReport, tot benchTotals) string {
	var sb strings.Builder
	sb.WriteString("# Truth bench\n\n")
	sb.WriteString("Compiled skills replayed against the real npm MCP servers (`go test ./bench/truth -run TestTruthBench`).\n\n")
	for _, l := range tot.lines() {
		sb.WriteString("- " + strings.Join(strings.Fields(l), " ") + "\n")
	}
	sb.WriteString("\n| workflow | skill | re-runnable |\n| --- | --- | --- |\n")
	for _, rep := range reports {
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", rep.Spec.Name, mdCell(skillLine(rep)), mdCell(rep.Spec.RerunWhy))
	}
	sb.WriteString("\n| workflow | scenario | kind | expected | outcome | verdict | note |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, rep := range reports {
		for _, r := range rep.Results {
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s |\n", rep.Spec.Name, r.ID, r.Kind, r.Expect, mdCell(r.Outcome), r.Verdict, mdCell(r.Note))
		}
	}
	sb.WriteString("\nScenarios:\n\n")
	for _, rep := range reports {
		for _, r := range rep.Results {
			fmt.Fprintf(&sb, "- %s / %s: %s\n", rep.Spec.Name, r.ID, r.What)
		}
	}
	return sb.String()
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func keepJSON(t *testing.T, keep string, sanitize *strings.Replacer, v any, name string) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Errorf("keeping %s: %v", name, err)
		return
	}
	keepBytes(t, keep, sanitize, append(data, '\n'), filepath.Base(name))
}
