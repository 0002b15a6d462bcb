package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/reelier/reelier/replay/ghworkflow"
	"github.com/spf13/cobra"
)

const ciLong = `Write a GitHub Actions workflow that replays this repository's skills
with the Reelier Action on every push and pull request, daily at 06:17 UTC
(drift in the APIs the skills call shows up without a commit), and on
demand.

The skills are every *.skill.md, and every SKILL.md with Reelier steps,
under --dir (the repository's root, default "."), written into the
workflow relative to it.

One suite job, not a matrix: a job pays for its runner, the checkout and
the install of reelier, and starts its MCP servers once, while a replay
takes milliseconds to seconds per skill; a suite job pays once for all its
skills and gives one JUnit report, one job summary with every failed and
healed step, and one push of every run. A matrix of one job per skill
multiplies the fixed cost by the number of skills for no gain until a
single skill runs for minutes (docs/ci.md has the figures). Skills
recorded against different MCP servers cannot share a run (--wrap
replaces every skill's servers), so each distinct list of recorded
servers gets a job of its own, with those servers as its wrap lines.

The workflow pins the Action by commit SHA (no tag is promised):
--ref SHA, or, when this binary was built from a clean git checkout, the
commit it was built from. It also says, in comments where they apply,
which inputs the skills need (vars) and which steps write (allow-writes);
it uploads the JUnit report, the run records and any heal patch as
artifacts, and pushes every run when the repository has the
REELIER_CLOUD_URL variable and REELIER_CLOUD_KEY secret.

A skill's server commands go into the workflow, where the Action starts
them, only once you have trusted them, as reelier run asks before it
starts them: trusted before (by run or ci, remembered per file until its
commands change), confirmed at the prompt when standard input is a
terminal, or --servers-from-skill. Otherwise the commands are listed and
nothing is written. A command naming a local absolute path (a temp or
home folder; anything outside /usr/bin, /bin, /usr/local/bin, /usr/sbin,
/sbin) is refused: a runner does not have it; use a published package
(npx -y <package>) or a path relative to the repository.

Every value is written as a quoted YAML string by a YAML library, and
the text is read back before it is written; output that does not read
back as the workflow intended is refused.

--sign says how the Action signs each receipt: off (the default) signs
nothing and grants the job nothing beyond reading the repository; keyless
has the Action hand the receipt predicate to GitHub's artifact
attestation service (actions/attest, pinned by SHA: a Sigstore
certificate for the job's OIDC identity, checked with 'gh attestation
verify --predicate-type'), keeps the signature bundle with the run
records, and is the only mode that writes the permissions id-token:
write and attestations: write; key (signing with a key of your own) is
refused for now: the Action cannot do it until reelier run signs records
itself.

An existing workflow file is never overwritten: give --force to replace
it. --output - prints the workflow instead of writing it.

Exit status: 0 written; 2 the file exists (without --force), no skill was
found, a skill does not parse, a server command is not trusted or names
a local path, no commit SHA to pin, the output does not read back, or bad
flags; 3 the file could not be written.

Examples:
  reelier ci --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --ref "$(git -C ../reelier rev-parse HEAD)" --output - | less
  reelier ci --force --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --servers-from-skill --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --sign keyless --ref 0123456789abcdef0123456789abcdef01234567`

type ciOptions struct {
	dir, output, ref, action, sign string
	force, serversFromSkill        bool
}

func newCICmd() *cobra.Command {
	var opts ciOptions
	cmd := &cobra.Command{
		Use:   "ci [--dir DIR] [--ref SHA] [--output FILE] [--force]",
		Short: "Write a GitHub Actions workflow that replays the repository's skills",
		Long:  ciLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return ciRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", ".", "the repository's root `DIR`: skills are found under it and the workflow is written in it")
	f.StringVarP(&opts.output, "output", "o", "", "write the workflow to `FILE` (default DIR/"+ghworkflow.DefaultPath+"; - prints it)")
	f.StringVar(&opts.ref, "ref", "", "pin the Action to this commit `SHA` (default: the commit this binary was built from, when known)")
	f.StringVar(&opts.action, "action", "reelier/reelier", "the Action's `OWNER/REPO`")
	f.BoolVar(&opts.force, "force", false, "replace an existing workflow file")
	f.StringVar(&opts.sign, "sign", ghworkflow.SignOff, "how the Action signs the receipts: `off`, keyless (actions/attest; writes the id-token and attestations permissions) or key (not available yet)")
	f.BoolVar(&opts.serversFromSkill, "servers-from-skill", false, "write the MCP server commands the skills record into the workflow, and remember for each file that you trust them")
	return cmd
}

func ciRun(cmd *cobra.Command, opts ciOptions) error {
	ref := opts.ref
	if ref == "" {
		ref = builtFrom()
		if ref == "" {
			return usageErrorf("give --ref SHA: this reelier was not built from a clean git checkout, so it does not know which commit of the Action to pin")
		}
	}
	var skills []string
	var walkErr error
	walkSkills(opts.dir, func(p string) { skills = append(skills, p) }, nil, func(err error) {
		if walkErr == nil {
			walkErr = err
		}
	})
	if walkErr != nil {
		return usageErrorf("%v", walkErr)
	}
	plan, err := ghworkflow.Load(ghworkflow.Options{Root: opts.dir, Skills: skills, Action: opts.action, Ref: ref, Version: versionString(), Sign: opts.sign})
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := plan.Trust(opts.serversFromSkill, cmd.InOrStdin(), cmd.ErrOrStderr(), isTerminal(cmd.InOrStdin())); err != nil {
		return err
	}
	data, err := plan.Render()
	var structure *ghworkflow.StructureError
	switch {
	case errors.As(err, &structure):
		return usageErrorf("%v", structure)
	case err != nil:
		return usageErrorf("%v", err)
	}
	if opts.output == "-" {
		_, err := cmd.OutOrStdout().Write(data)
		return err
	}
	out := opts.output
	if out == "" {
		out = filepath.Join(opts.dir, filepath.FromSlash(ghworkflow.DefaultPath))
	}
	switch err := ghworkflow.Write(out, data, opts.force); {
	case errors.Is(err, ghworkflow.ErrExists):
		return usageErrorf("%s already exists; reelier ci never overwrites a workflow: compare it with 'reelier ci --output -', or give --force to replace it", out)
	case err != nil:
		return &exitError{Code: exitTool, Err: err}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d skill(s), the Action pinned at %s\n", out, len(skills), ref)
	return nil
}

// builtFrom is the commit this binary was built from, when it was built
// from a git checkout without local changes; "" otherwise.
func builtFrom() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	modified := true
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value != "false"
		}
	}
	if modified || len(rev) != 40 {
		return ""
	}
	if _, err := os.Stat("."); err != nil {
		return ""
	}
	return rev
}
