package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/record/session"
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

// progressEvery is how often the progress bar is redrawn at most.
const progressEvery = 100 * time.Millisecond

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
	Compiled []scanCompiled `json:"compiled"`
}

// scanCompiled is what happened to one chosen session.
type scanCompiled struct {
	Path   string `json:"path"`
	Skill  string `json:"skill,omitempty"`
	Steps  int    `json:"steps,omitempty"`
	Status string `json:"status"` // "written", "exists" or "failed"
	Error  string `json:"error,omitempty"`
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
	bar := newProgressBar(cmd.ErrOrStderr(), opts.json)
	res, err := scan.Scan(dir, scan.Options{Progress: bar.update})
	bar.clear()
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
		chosen = askSelection(cmd.InOrStdin(), w, len(res.Replayable))
	case !opts.json && len(res.Replayable) > 0:
		fmt.Fprintln(w, "\nNothing compiled: run reelier scan --yes to compile all of them, or reelier from-session <file> for one.")
	}
	compiled := compileChosen(w, res, chosen, opts)
	if opts.json {
		if compiled == nil {
			compiled = []scanCompiled{}
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

// askSelection prompts until the answer is a valid selection; the end of
// the input is no selection.
func askSelection(in io.Reader, w io.Writer, n int) []int {
	r := bufio.NewReader(in)
	for {
		fmt.Fprint(w, "\nSelect sessions to compile (comma-separated numbers, \"all\", or Enter for none): ")
		answer, err := r.ReadString('\n')
		if err != nil && answer == "" {
			fmt.Fprintln(w)
			return nil
		}
		chosen, perr := scan.ParseSelection(answer, n)
		if perr == nil {
			return chosen
		}
		fmt.Fprintf(w, "%v\n", perr)
		if err != nil {
			return nil
		}
	}
}

// compileChosen compiles the chosen sessions into opts.outDir, reporting
// each on w unless --json.
func compileChosen(w io.Writer, res *scan.Result, chosen []int, opts scanOptions) []scanCompiled {
	var out []scanCompiled
	if len(chosen) > 0 && !opts.json {
		fmt.Fprintln(w)
	}
	for _, i := range chosen {
		e := res.Replayable[i]
		c := compileEntry(e, opts)
		out = append(out, c)
		if opts.json {
			continue
		}
		switch c.Status {
		case "written":
			fmt.Fprintf(w, "Compiled %s — %s (from %s)\n", c.Skill, pluralCount(c.Steps, "step"), e.Path)
		case "exists":
			fmt.Fprintf(w, "Left %s alone: it exists (from %s)\n", c.Skill, e.Path)
		default:
			fmt.Fprintf(w, "Could not compile %s: %s\n", e.Path, c.Error)
		}
	}
	return out
}

// compileEntry compiles one scanned session exactly as from-session does.
func compileEntry(e *scan.Entry, opts scanOptions) scanCompiled {
	c := scanCompiled{Path: e.Path}
	f, err := os.Open(e.Path)
	if err != nil {
		c.Status, c.Error = "failed", err.Error()
		return c
	}
	s, err := session.Read(f, session.Options{Keep: true})
	f.Close()
	if err != nil {
		c.Status, c.Error = "failed", err.Error()
		return c
	}
	name := scanSkillName(e, s)
	c.Skill = filepath.Join(opts.outDir, name+".skill.md")
	if opts.skillsDir != "" {
		// The folder is the name the compiler gives the skill, so an
		// agent that loads DIR/<name>/SKILL.md finds the two agree.
		if n := agentskill.Name(name); n != "" {
			name = n
		}
		c.Skill = filepath.Join(opts.skillsDir, name, "SKILL.md")
	}
	if _, err := os.Lstat(c.Skill); err == nil {
		c.Status = "exists"
		return c
	}
	res, err := writeSessionSkill(s, name, session.ObservedFile, filepath.Base(e.Path), c.Skill)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.Err != nil {
			err = ee.Err
		}
		c.Status, c.Error = "failed", err.Error()
		return c
	}
	c.Status, c.Steps = "written", res.Summary.Steps
	return c
}

// scanSkillName is <project>-<first 8 characters of the session id>, in
// the characters a file name can safely hold.
func scanSkillName(e *scan.Entry, s *session.Session) string {
	base := defaultSkillPath(e.Project+"-"+strings.TrimPrefix(s.DefaultName(e.Path), "session-"), e.Path)
	return strings.TrimSuffix(base, ".skill.md")
}

// pluralCount renders "1 step" or "3 steps".
func pluralCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar draws scan progress on a terminal; on anything else it
// draws nothing.
type progressBar struct {
	w    io.Writer
	on   bool
	last time.Time
	drew bool
}

func newProgressBar(w io.Writer, quiet bool) *progressBar {
	return &progressBar{w: w, on: !quiet && isTerminal(w)}
}

func (b *progressBar) update(p scan.Progress) {
	if !b.on || p.FilesDone < p.Files && time.Since(b.last) < progressEvery {
		return
	}
	b.last, b.drew = time.Now(), true
	const width = 30
	filled := width
	if p.Bytes > 0 {
		filled = int(int64(width) * p.BytesDone / p.Bytes)
	}
	fmt.Fprintf(b.w, "\r\x1b[KScanning [%s%s] %d/%d sessions · %s", strings.Repeat("█", filled), strings.Repeat("░", width-filled), p.FilesDone, p.Files, megabytes(p.BytesDone))
}

// clear removes the bar once the scan is over.
func (b *progressBar) clear() {
	if b.drew {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
