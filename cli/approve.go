package cli

import (
	"fmt"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/approval"
	"github.com/spf13/cobra"
)

const approveLong = `Approve a skill's write steps, so that a replay runs them only while
they still do what was reviewed.

An approval is a digest (sha256:…) of a step's tool, the Servers entry
that lists the tool, its argument template (holes unfilled) and its
effect. It is kept in the skill's frontmatter, under
metadata: reelier-approvals, one line a step:

  3 sha256:<64 hex> tool=<8 hex> server=<8 hex> args=<8 hex> effect=<8 hex>

the short digests saying which part changed when the step no longer
matches. Without --step every write step (idempotent-write,
destructive) is approved; --step N (repeatable) approves the steps named,
whatever their effect. The approvals of the other steps are kept; one for
a step the skill no longer has is dropped.

Once a skill keeps approvals, reelier run runs a write step, or a step
that has an approval, only when its approval matches the step as it is —
even with --allow-writes or --yes. A step edited after it was approved
fails closed (path:line:col: step N: … naming what changed), and so does
a write step without an approval; the run record's step says so
("approval": {"status": "stale" | "missing"}), and the run exits 2.
reelier lint reports stale approvals and approvals of steps the skill
does not have.

The file is rewritten in place the way fmt -w rewrites it: under the
file's lock, from the file as it is then, atomically; a symbolic link is
followed. Only the metadata line is written; the rest of the file is left
byte for byte.

Exit status: 0 approved (or already approved); 2 when the file cannot be
read or parsed, a step does not exist, there is no write step to approve
or the file is read-only (it is left as it was).

Examples:
  reelier approve notes.skill.md
  reelier approve notes.skill.md --step 3`

func newApproveCmd() *cobra.Command {
	var steps []int
	cmd := &cobra.Command{
		Use:   "approve SKILL [--step N]…",
		Short: "Approve a skill's write steps (a replay refuses them once edited)",
		Long:  approveLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, n := range steps {
				if n < 1 {
					return usageErrorf("--step must be a step number (1 or more), got %d", n)
				}
			}
			approved, wrote, err := approval.Approve(args[0], steps)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "reelier approve:", termtext.Line(err.Error()))
				return silentExit(exitUsage)
			}
			verb := "approved"
			if !wrote {
				verb = "already approved"
			}
			for _, n := range approved {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: step %d %s\n", termtext.Line(args[0]), n, verb)
			}
			return nil
		},
	}
	cmd.Flags().IntSliceVar(&steps, "step", nil, "approve step `N` (repeatable; default: every write step)")
	return cmd
}
