package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
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
which inputs the skills need (vars) and which steps write; it uploads the
JUnit report, the run records and any heal patch as artifacts, and pushes
every run when the repository has the REELIER_CLOUD_URL variable and
REELIER_CLOUD_KEY secret.

Steps that write are decided, never left to fail the first run: the
Action's effect gate refuses an idempotent-write step unless allow-writes
is "true" and a destructive one unless yes is "true". --allow-writes lets
the workflow run idempotent writes, --yes destructive steps too (on every
push and every day: think twice), --no-writes leaves every skill with a
writing step out of the workflow (named in its header). Without one of
them, ci asks when standard input is a terminal (y: run them, as
--allow-writes, and --yes when a step is destructive); otherwise it writes
nothing, lists each writing step at file:line with the flags, and exits 2.

The pull-request comment: by default the Action posts one comment on the
pull request with each skill's verdict, the failed and healed steps at
file:line, the open-question count and links to the run (and to the
ledger's pages), and updates that comment on the next run instead of
adding one; the workflow then grants pull-requests: write. --comment=false
writes comment: "false" and grants nothing more.

A skill's server commands go into the workflow, where the Action starts
them, only once you have trusted them, as reelier run asks before it
starts them: trusted before (by run or ci, remembered per file until its
commands change), confirmed at the prompt when standard input is a
terminal, or --servers-from-skill. Otherwise the commands are listed and
nothing is written. A command naming a local absolute path (a temp or
home folder; anything outside /usr/bin, /bin, /usr/local/bin, /usr/sbin,
/sbin) is refused: a runner does not have it. When the path lies in an npm
package (…/node_modules/<package>/…) the message gives the command to
record instead, npx -y <package>@<version> (the version from the
package's package.json, when it is on this machine); otherwise use a
published package or a path relative to the repository.

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
write and attestations: write; key has the Action run reelier run --sign
with the private key in the repository secret REELIER_SIGNING_KEY (the
PEM file reelier key init writes: gh secret set REELIER_SIGNING_KEY <
signing.key), keeps each record's bundle in the runs-dir, and needs no
permission (reviewers check a bundle with reelier verify BUNDLE --key
signing.pub).

An existing workflow file is never overwritten: give --force to replace
it. --output - prints the workflow instead of writing it.

A workflow that cannot be written (its folder is not writable, or a
path on the way is a file) is reported with the folder and the reason;
nothing is left half-written: the file is written to a temporary name
and renamed.

Exit status: 0 written; 2 the file exists (without --force), no skill was
found, a skill does not parse, a server command is not trusted or names
a local path, a writing step was not decided, no commit SHA to pin, the
output does not read back, or bad flags; 3 the file could not be written
(a folder that is not writable).

Examples:
  reelier ci --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --ref "$(git -C ../reelier rev-parse HEAD)" --output - | less
  reelier ci --force --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --servers-from-skill --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --sign keyless --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --allow-writes --ref 0123456789abcdef0123456789abcdef01234567
  reelier ci --no-writes --comment=false --ref 0123456789abcdef0123456789abcdef01234567`

type ciOptions struct {
	dir, output, ref, action, sign string
	force, serversFromSkill        bool
	allowWrites, yes, noWrites     bool
	comment                        bool
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
	f.StringVar(&opts.sign, "sign", ghworkflow.SignOff, "how the Action signs the receipts: `off`, keyless (actions/attest; writes the id-token and attestations permissions) or key (the secret "+ghworkflow.SigningKeySecret+")")
	f.BoolVar(&opts.allowWrites, "allow-writes", false, "let the workflow run the skills' idempotent-write steps")
	f.BoolVar(&opts.yes, "yes", false, "let the workflow run destructive steps too (on every push: think twice)")
	f.BoolVar(&opts.noWrites, "no-writes", false, "leave the skills with writing steps out of the workflow")
	f.BoolVar(&opts.comment, "comment", true, "have the Action post (and update) one pull-request comment; grants pull-requests: write")
	f.BoolVar(&opts.serversFromSkill, "servers-from-skill", false, "write the MCP server commands the skills record into the workflow, and remember for each file that you trust them")
	cmd.AddCommand(newCICommentCmd())
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
	plan, err := ghworkflow.Load(ghworkflow.Options{Root: opts.dir, Skills: skills, Action: opts.action, Ref: ref, Version: versionString(), Sign: opts.sign,
		AllowWrites: opts.allowWrites, AllowDestructive: opts.yes, NoWrites: opts.noWrites, Comment: opts.comment})
	if err != nil {
		return usageErrorf("%v", err)
	}
	terminal := isTerminal(cmd.InOrStdin())
	stdin := bufio.NewReader(cmd.InOrStdin())
	if err := plan.Trust(opts.serversFromSkill, stdin, cmd.ErrOrStderr(), terminal); err != nil {
		return err
	}
	if u := plan.Undecided(); len(u) > 0 && terminal {
		askWrites(plan, u, stdin, cmd.ErrOrStderr())
	}
	data, err := plan.Render()
	var structure *ghworkflow.StructureError
	var writes *ghworkflow.WritesError
	switch {
	case errors.As(err, &writes):
		return usageErrorf("%v", writes)
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
		return &exitError{Code: exitTool, Err: fmt.Errorf("cannot write the workflow %s: %s; nothing was written (reelier ci --output - prints it instead)", termtext.Line(out), termtext.Line(writeReason(err)))}
	}
	n := len(skills) - len(plan.LeftOut())
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d skill(s), the Action pinned at %s\n", out, n, ref)
	if in := plan.Inputs(); len(in) > 0 {
		// The one thing the first run still needs from the user: the
		// values, which reelier ci cannot know.
		var vars []string
		for _, name := range in {
			vars = append(vars, strings.ToUpper(name))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "before the first push: the skills need the inputs %s, and the job stops before running until the workflow's vars input gives them: set them (gh variable set %s --body VALUE, one each: %s) and uncomment the vars lines in %s\n",
			termtext.Line(strings.Join(in, ", ")), termtext.Line(vars[0]), termtext.Line(strings.Join(vars, ", ")), termtext.Line(out))
	}
	if left := plan.LeftOut(); len(left) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "left out (--no-writes, they have steps that write): %s\n", termtext.Line(strings.Join(left, ", ")))
	}
	return nil
}

// askWrites asks at the terminal whether the workflow may run the
// writing steps u; yes decides as --allow-writes (and --yes when a step
// is destructive), anything else leaves them undecided, and Render
// refuses with the flags.
func askWrites(plan *ghworkflow.Plan, u []ghworkflow.WriteStep, stdin *bufio.Reader, stderr io.Writer) {
	destructive := false
	fmt.Fprintf(stderr, "These steps write, and the workflow runs on every push, every pull request and every day:\n")
	for _, w := range u {
		fmt.Fprintf(stderr, "  %s\n", termtext.Line(w.String()))
		destructive = destructive || w.Effect == ast.EffectDestructive
	}
	q := "Let the workflow run them (allow-writes: \"true\")? [y/N] "
	if destructive {
		q = "Let the workflow run them, destructive ones included (allow-writes and yes: \"true\")? [y/N] "
	}
	fmt.Fprint(stderr, q)
	answer, _ := stdin.ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		plan.Decide(true, destructive, false)
	}
}

// writeReason says why a workflow file could not be written, without the
// path the error repeats: the folder not writable, a path on the way that
// is a file.
func writeReason(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "the folder is not writable (permission denied)"
	case errors.Is(err, syscall.ENOTDIR):
		return "a path on the way is a file, not a folder"
	case errors.Is(err, syscall.EROFS):
		return "the file system is read-only"
	case errors.As(err, &pe):
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
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
