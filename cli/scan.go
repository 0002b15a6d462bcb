package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/record/session/scan"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

const scanLong = `Look through your agents' whole session history for workflows worth
turning into skills. By default every host's own folders are read — Claude
Code's ~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects), and the
folders of every other host Reelier reads (the names --host takes);
--host picks some (repeat it). Given a folder (DIR,
or --dir DIR), every *.jsonl and *.json file under it is read instead,
recursively, each by the host its name and first bytes say wrote it;
files no host claims are passed over. Each session is read with exactly
the classification from-session uses — so a session listed here is one
from-session would compile, and one left out is one it would refuse.

Prints how many sessions were found and how many hold replayable calls,
the replayable rate (sessions whose replayable calls are all reads, and
sessions held back only by tools whose names no verb explains, with the
top such tools), each folder looked in with what it held per host
(sessions read, replayable, skipped for having no replayable call, files
not read; "not there" for a host folder that does not exist), then the
replayable workflows: sessions whose replayable calls used the same tools
in the same order (arguments may differ) are listed once, "you did this
N times", with the sessions beneath, the most repeated first; each other
session on one line: project, start time (UTC), replayable calls, the MCP
servers they used and the host. Sessions with no replayable call are
counted, never offered.

On a terminal you then pick which workflows to compile ("1,3", "2-4",
"all", or Enter for none); --yes compiles all of them without asking; a
workflow done N times is compiled once, from its newest session;
otherwise nothing is compiled. Skills go to --out-dir as <project>-<session>.skill.md,
or with --skills-dir DIR as Agent Skills, DIR/<project>-<session>/SKILL.md,
which an agent such as Claude Code loads from .claude/skills; a skill that
exists is left alone. Files that cannot be read, binary files and
symbolic-link loops are counted and skipped, and so are bad lines. A
progress bar shows on a terminal. --json prints the findings as JSON.

Exit status: 0 when the scan ran and every chosen skill was written; 1
when a chosen session could not be compiled; 2 for usage errors (an
unknown --host) and a folder that cannot be read.

Examples:
  reelier scan
  reelier scan --host claude --host codex
  reelier scan ~/work/agent-history --yes
  reelier scan --yes --out-dir skills/from-history
  reelier scan --yes --skills-dir .claude/skills
  reelier scan --json | jq '.replayable[] | .path'`

// defaultScanOutDir is where scan writes skills unless told otherwise.
var defaultScanOutDir = filepath.Join(".reelier", "skills-from-scan")

type scanOptions struct {
	dir       string
	hosts     []string
	outDir    string
	skillsDir string
	yes       bool
	json      bool
}

func newScanCmd() *cobra.Command {
	var opts scanOptions
	cmd := &cobra.Command{
		Use:   "scan [DIR] [--host NAME]... [--yes] [--out-dir DIR] [--json]",
		Short: "Find replayable workflows across your agents' session history",
		Long:  scanLong,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if opts.dir != "" {
					return usageErrorf("give the folder once: as DIR or as --dir")
				}
				opts.dir = args[0]
			}
			if opts.skillsDir != "" && cmd.Flags().Changed("out-dir") {
				return usageErrorf("--out-dir and --skills-dir cannot be used together: --skills-dir writes DIR/<name>/SKILL.md")
			}
			return scanRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", "scan the sessions of any host under `DIR` (default: each host's own folders)")
	f.StringArrayVar(&opts.hosts, "host", nil, "read only this host's sessions: "+strings.Join(session.HostNames(session.Hosts), ", ")+" (repeatable)")
	f.BoolVar(&opts.yes, "yes", false, "compile every replayable session without asking")
	f.StringVar(&opts.outDir, "out-dir", defaultScanOutDir, "write the compiled skills to `DIR` as <name>.skill.md")
	f.StringVar(&opts.skillsDir, "skills-dir", "", "write the compiled skills as Agent Skills, `DIR`/<name>/SKILL.md (e.g. .claude/skills); not with --out-dir")
	f.BoolVar(&opts.json, "json", false, "print the findings as JSON")
	return cmd
}

// scanReport is the --json output.
type scanReport struct {
	*scan.Result
	Compiled []scan.Compiled `json:"compiled"`
}

// scanHosts is the host table --host picks from, in table order.
func scanHosts(names []string) ([]session.Host, error) {
	if len(names) == 0 {
		return session.Hosts, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		if _, ok := session.HostNamed(session.Hosts, n); !ok {
			return nil, usageErrorf("--host %s: not a host Reelier reads; the hosts are %s", termtext.Line(n), strings.Join(session.HostNames(session.Hosts), ", "))
		}
		want[n] = true
	}
	var out []session.Host
	for _, h := range session.Hosts {
		if want[h.Name] {
			out = append(out, h)
		}
	}
	return out, nil
}

func scanRun(cmd *cobra.Command, opts scanOptions) error {
	hosts, err := scanHosts(opts.hosts)
	if err != nil {
		return err
	}
	bar := scan.NewProgressBar(cmd.ErrOrStderr(), opts.json || !isTerminal(cmd.ErrOrStderr()))
	sopts := scan.Options{Progress: bar.Update, Hosts: hosts}
	var res *scan.Result
	if opts.dir != "" {
		res, err = scan.Scan(opts.dir, sopts)
		if err != nil {
			err = usageErrorf("cannot scan %s: %v", opts.dir, err)
		}
	} else {
		home, herr := os.UserHomeDir()
		if herr != nil {
			bar.Clear()
			return usageErrorf("no home directory to find the agents' history in (%v); pass a folder: reelier scan DIR", herr)
		}
		res, err = scan.ScanHosts(hosts, home, os.Getenv, sopts)
		if err != nil {
			err = usageErrorf("cannot scan: %v", err)
		}
	}
	bar.Clear()
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	interactive := !opts.yes && !opts.json && isTerminal(cmd.InOrStdin()) && len(res.Groups) > 0
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
		chosen, _ = scan.ParseSelection("all", len(res.Groups))
	case interactive:
		chosen = scan.AskSelection(cmd.InOrStdin(), w, len(res.Groups))
	case !opts.json && len(res.Replayable) > 0:
		fmt.Fprintln(w, "\nNothing compiled: run reelier scan --yes to compile all of them, or reelier from-session <file> for one.")
	}
	compiled := res.CompileChosen(w, chosen, scan.CompileOptions{OutDir: opts.outDir, SkillsDir: opts.skillsDir, JSON: opts.json})
	if opts.json {
		if compiled == nil {
			compiled = []scan.Compiled{}
		}
		writeJSON(w, scanReport{Result: res, Compiled: compiled})
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
