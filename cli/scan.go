package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/record/session/scan"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

const scanLong = `Look through your agent's whole session history for workflows worth
turning into skills: every *.jsonl transcript under --dir (default
~/.claude/projects), recursively, read with exactly the classification
from-session uses — so a session listed here is one from-session would
compile, and one left out is one it would refuse.

Prints how many sessions were found and how many hold replayable calls,
the replayable rate (sessions whose replayable calls are all reads, and
sessions held back only by tools whose names no verb explains, with the
top such tools), then one line per replayable session: project, start
time (UTC), replayable calls and the MCP servers they used. Sessions with
no replayable call are counted, never offered.

On a terminal you then pick which to compile ("1,3", "2-4", "all", or
Enter for none); --yes compiles all of them without asking; otherwise
nothing is compiled. Skills go to --out-dir as <project>-<session>.skill.md,
or with --skills-dir DIR as Agent Skills, DIR/<project>-<session>/SKILL.md,
which an agent such as Claude Code loads from .claude/skills; a skill that
exists is left alone. Files that cannot be read, binary files and
symbolic-link loops are counted and skipped, and so are bad lines. A
progress bar shows on a terminal. --json prints the findings as JSON.

Exit status: 0 when the scan ran and every chosen skill was written; 1
when a chosen session could not be compiled; 2 for usage errors and a
--dir that cannot be read.

Examples:
  reelier scan
  reelier scan --dir ~/work/agent-history --yes
  reelier scan --yes --out-dir skills/from-history
  reelier scan --yes --skills-dir .claude/skills
  reelier scan --json | jq '.replayable[] | .path'`

// defaultScanOutDir is where scan writes skills unless told otherwise.
var defaultScanOutDir = filepath.Join(".reelier", "skills-from-scan")

type scanOptions struct {
	dir       string
	outDir    string
	skillsDir string
	yes       bool
	json      bool
}

func newScanCmd() *cobra.Command {
	var opts scanOptions
	cmd := &cobra.Command{
		Use:   "scan [--dir DIR] [--yes] [--out-dir DIR] [--json]",
		Short: "Find replayable workflows across your agent's session history",
		Long:  scanLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.skillsDir != "" && cmd.Flags().Changed("out-dir") {
				return usageErrorf("--out-dir and --skills-dir cannot be used together: --skills-dir writes DIR/<name>/SKILL.md")
			}
			return scanRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", "the history to scan (default ~/.claude/projects)")
	f.BoolVar(&opts.yes, "yes", false, "compile every replayable session without asking")
	f.StringVar(&opts.outDir, "out-dir", defaultScanOutDir, "write the compiled skills to `DIR` as <name>.skill.md")
	f.StringVar(&opts.skillsDir, "skills-dir", "", "write the compiled skills as Agent Skills, `DIR`/<name>/SKILL.md (e.g. .claude/skills); not with --out-dir")
	f.BoolVar(&opts.json, "json", false, "print the findings as JSON")
	return cmd
}

// scanReport is the --json output.
type scanReport struct {
	Dir string `json:"dir"`
	*scan.Result
	Compiled []scan.Compiled `json:"compiled"`
}

func scanRun(cmd *cobra.Command, opts scanOptions) error {
	dir := opts.dir
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return usageErrorf("no home directory to find ~/.claude/projects in (%v); pass --dir", err)
		}
		dir = filepath.Join(home, ".claude", "projects")
	}
	bar := scan.NewProgressBar(cmd.ErrOrStderr(), opts.json || !isTerminal(cmd.ErrOrStderr()))
	res, err := scan.Scan(dir, scan.Options{Progress: bar.Update})
	bar.Clear()
	if err != nil {
		return usageErrorf("cannot scan %s: %v", dir, err)
	}
	w := cmd.OutOrStdout()
	interactive := !opts.yes && !opts.json && isTerminal(cmd.InOrStdin()) && len(res.Replayable) > 0
	if !opts.json {
		res.WriteSummary(w)
		fmt.Fprintln(w)
		if interactive {
			fmt.Fprintf(w, "Which should Reelier turn into a skill you can replay forever?\n\n")
		}
		res.WriteListing(w)
	}
	var chosen []int
	switch {
	case opts.yes:
		chosen, _ = scan.ParseSelection("all", len(res.Replayable))
	case interactive:
		chosen = scan.AskSelection(cmd.InOrStdin(), w, len(res.Replayable))
	case !opts.json && len(res.Replayable) > 0:
		fmt.Fprintln(w, "\nNothing compiled: run reelier scan --yes to compile all of them, or reelier from-session <file> for one.")
	}
	compiled := res.CompileChosen(w, chosen, scan.CompileOptions{OutDir: opts.outDir, SkillsDir: opts.skillsDir, JSON: opts.json})
	if opts.json {
		if compiled == nil {
			compiled = []scan.Compiled{}
		}
		writeJSON(w, scanReport{Dir: dir, Result: res, Compiled: compiled})
	}
	for _, c := range compiled {
		if c.Status == "failed" {
			return silentExit(exitFailed)
		}
	}
	return nil
}

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
