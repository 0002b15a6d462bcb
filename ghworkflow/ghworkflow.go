// Package ghworkflow writes the GitHub Actions workflow that `reelier ci`
// generates: the repository's skills replayed by the Reelier Action,
// pinned by commit SHA, on pushes, pull requests, a daily schedule and on
// demand.
//
// The shape is one suite job per set of MCP servers, not a matrix with a
// job per skill. A job pays for its runner, the checkout and the install
// of reelier (seconds, even from the cache) and starts its MCP servers
// once; a replay itself takes milliseconds to seconds per skill. A suite
// job pays those costs once for all its skills, writes one JUnit report
// and one job summary, and pushes every run. Skills recorded against
// different MCP servers cannot share a job, since `--wrap` replaces the
// servers of every skill in a run: each distinct list of recorded servers
// gets a job of its own, with those servers as its wrap lines.
package ghworkflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/runtime"
)

// DefaultPath is where the workflow goes, relative to the repository.
const DefaultPath = ".github/workflows/reelier.yml"

// The actions the workflow uses besides Reelier's, pinned by commit SHA.
const (
	checkoutAction = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2"
	uploadAction   = "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2"
)

// Options say what to generate.
type Options struct {
	// Root is the repository's folder; skill paths are written relative
	// to it, slash-separated.
	Root string
	// Skills are the skill files, as found under Root.
	Skills []string
	// Action is the Reelier Action's repository (owner/name).
	Action string
	// Ref is the commit SHA the Action is pinned to.
	Ref string
	// Version names the reelier that generated the workflow.
	Version string
}

// ErrExists is returned by Write when the workflow file exists and force
// was not given.
var ErrExists = errors.New("the workflow file exists")

// job is one suite job: skills that share a list of recorded servers.
type job struct {
	servers []string
	skills  []string
	inputs  []string
	writes  []string
}

// Generate returns the workflow's YAML. A skill that cannot be read or
// parsed, a path or server command the workflow cannot carry, or a ref
// that is not a full commit SHA is an error naming it.
func Generate(opts Options) ([]byte, error) {
	if !isSHA(opts.Ref) {
		return nil, fmt.Errorf("the action ref %q is not a full commit SHA (40 hex digits): pin the action by SHA, no tag is promised", opts.Ref)
	}
	if len(opts.Skills) == 0 {
		return nil, fmt.Errorf("no skill found under %s (no *.skill.md, and no SKILL.md with Reelier steps)", opts.Root)
	}
	var jobs []*job
	for _, p := range opts.Skills {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		skill, diags := grammar.Parse(p, src)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s does not parse; fix it first (reelier lint %s):\n%s", p, p, diags.Error())
		}
		rel, err := filepath.Rel(opts.Root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s is not inside %s", p, opts.Root)
		}
		rel = filepath.ToSlash(rel)
		if err := carriable("the skill path", rel, true); err != nil {
			return nil, err
		}
		var servers []string
		for _, s := range skill.Servers {
			if err := carriable(fmt.Sprintf("%s: the command of server %q", rel, s.Name), s.Command, false); err != nil {
				return nil, err
			}
			servers = append(servers, s.Command)
		}
		i := slices.IndexFunc(jobs, func(j *job) bool { return slices.Equal(j.servers, servers) })
		if i < 0 {
			jobs = append(jobs, &job{servers: servers})
			i = len(jobs) - 1
		}
		j := jobs[i]
		j.skills = append(j.skills, rel)
		for _, in := range runtime.Inputs(skill) {
			if !slices.Contains(j.inputs, in.Name) {
				j.inputs = append(j.inputs, in.Name)
			}
		}
		for _, st := range skill.Steps {
			if e := st.EffectValue(); e == ast.EffectIdempotentWrite || e == ast.EffectDestructive {
				j.writes = append(j.writes, fmt.Sprintf("%s step %d (%s)", rel, st.Number, e))
			}
		}
	}
	// Jobs without servers first, then in order of their first skill.
	slices.SortStableFunc(jobs, func(a, b *job) int {
		return min(len(a.servers), 1) - min(len(b.servers), 1)
	})
	return render(opts, jobs), nil
}

// carriable refuses text that would change meaning in the workflow: a
// line break, an expression opener (GitHub would evaluate it), and, for
// a skill path, white space (the action splits its skills on it).
func carriable(what, s string, path bool) error {
	switch {
	case strings.ContainsAny(s, "\r\n"):
		return fmt.Errorf("%s %q holds a line break", what, s)
	case strings.Contains(s, "${{"):
		return fmt.Errorf("%s %q holds ${{, which GitHub would evaluate as an expression", what, s)
	case path && strings.ContainsAny(s, " \t"):
		return fmt.Errorf("%s %q holds white space, which the action's skills input splits on; rename it", what, s)
	}
	return nil
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// render writes the YAML. Every value is either fixed text or a path or
// command checked by carriable, written inside a literal block scalar.
func render(opts Options, jobs []*job) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	p("# Generated by `reelier ci` (reelier %s). Replays this repository's\n", version)
	p("# skills with the Reelier Action, pinned by commit SHA, as one suite job\n")
	p("# per set of MCP servers: one install, one JUnit report and one job\n")
	p("# summary per job, every run pushed to the receipt ledger when\n")
	p("# REELIER_CLOUD_KEY is set. Edit it freely; `reelier ci --force`\n")
	p("# regenerates it from scratch.\n")
	p("name: Reelier replay\n\n")
	p("on:\n  push:\n  pull_request:\n  schedule:\n    - cron: \"17 6 * * *\" # daily, 06:17 UTC: catches drift in the APIs the skills call\n  workflow_dispatch:\n\n")
	p("permissions:\n  contents: read\n\n")
	p("jobs:\n")
	for i, j := range jobs {
		id := "replay"
		if len(jobs) > 1 {
			id = fmt.Sprintf("replay-%d", i+1)
		}
		p("  %s:\n", id)
		name := "Replay skills"
		if len(j.servers) > 0 {
			name = fmt.Sprintf("Replay skills on %d MCP server(s)", len(j.servers))
		}
		p("    name: %s\n", name)
		p("    runs-on: ubuntu-latest\n    timeout-minutes: 20\n    steps:\n")
		p("      - uses: %s\n\n", checkoutAction)
		p("      - name: Replay the skills\n        id: reelier\n        uses: %s@%s\n        with:\n", opts.Action, opts.Ref)
		p("          skills: |\n")
		for _, s := range j.skills {
			p("            %s\n", s)
		}
		if len(j.servers) > 0 {
			p("          # The MCP servers these skills were recorded with (they need\n")
			p("          # what their commands need: Node for npx, credentials in env).\n")
			p("          wrap: |\n")
			for _, s := range j.servers {
				p("            %s\n", s)
			}
		}
		if len(j.inputs) > 0 {
			p("          # Inputs the skills need; until they are given here (name=value,\n")
			p("          # one a line) the replay stops before running and names each:\n")
			p("          #   %s\n", strings.Join(j.inputs, ", "))
			p("          # vars: |\n          #   %s=${{ vars.%s }}\n", j.inputs[0], strings.ToUpper(j.inputs[0]))
		}
		if len(j.writes) > 0 {
			p("          # These steps write; the effect gate refuses them unless\n")
			p("          # allow-writes (idempotent writes) or yes (destructive) is \"true\":\n")
			for _, w := range j.writes {
				p("          #   %s\n", w)
			}
			p("          allow-writes: \"false\"\n")
		}
		p("          junit: reelier-junit-%d.xml\n", i+1)
		p("          max-level: \"0\" # 0 never calls an LLM; 1 or 2 heal into the patch output\n")
		p("          push: always # failing runs too, so the ledger shows the real pass rate\n")
		p("          cloud-url: ${{ vars.REELIER_CLOUD_URL }}\n")
		p("          cloud-key: ${{ secrets.REELIER_CLOUD_KEY }}\n\n")
		p("      - name: Keep the JUnit report and the run records\n        if: always()\n        uses: %s\n        with:\n", uploadAction)
		p("          name: reelier-replay-%d\n          path: |\n            reelier-junit-%d.xml\n            ${{ steps.reelier.outputs.runs-dir }}\n          if-no-files-found: ignore\n\n", i+1, i+1)
		p("      - name: Keep the heal patch (commit it)\n        if: always() && steps.reelier.outputs.patch != ''\n        uses: %s\n        with:\n", uploadAction)
		p("          name: reelier-heal-patch-%d\n          path: ${{ steps.reelier.outputs.patch }}\n", i+1)
		if i < len(jobs)-1 {
			p("\n")
		}
	}
	return []byte(b.String())
}

// Write writes the workflow to path atomically, creating its folder.
// An existing file is replaced only with force; otherwise ErrExists.
func Write(path string, data []byte, force bool) error {
	if _, err := os.Lstat(path); err == nil && !force {
		return ErrExists
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}
