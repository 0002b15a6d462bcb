package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/spf13/cobra"
)

const pushLong = `Send a skill's run records, and the skill file whenever its content
changed since it was last uploaded, to a receipt ledger ('reelier ledger serve', or any server speaking the same
API). Push is opt-in and inert until the variables are set:

  REELIER_CLOUD_URL   the ledger's base URL (a trailing slash is fine)
  REELIER_CLOUD_KEY   its API key (never printed, logged or echoed)

Without REELIER_CLOUD_KEY, push asks the ledger whether it needs one
(GET /api/v1/info, no key sent): a ledger that holds no API key (open, for
loopback clients only) is pushed to without one; for any other the push
stops with exit 2 and says the key is not set.

A record signed by reelier run --sign goes with its bundle
(<runs-dir>/<skill-name>.bundles/…); the ledger says what it made of it,
printed beside the record: verified (signer), signed, not trusted, or — for
a record changed after signing — a 400 naming the change. A record push
must redact before sending goes without its bundle, with a warning.

Records are read from <runs-dir>/<skill-name>.jsonl and sent one POST each,
strictly in file order, each with an Idempotency-Key (a hash of the skill
name and the record) so a ledger drops a record it already has. A cursor per
ledger URL and skill in .reelier/push-state.json remembers how far pushing
got; a plain push sends only the records after it, and the file is
rewritten atomically after every record, under a lock so two pushes take
turns. A second ledger has its own cursors: the skill file goes there
first, then every record. A state file from before per-ledger cursors is
kept and adopted by the next push, whichever ledger it goes to.

What the ledger answers decides what happens next:
  202            pushed; the cursor moves on
  400, 413       a permanent verdict on that record: a warning on stderr,
                 an entry {index, reason, at} appended to the skill's
                 "rejected" list in the state file, and the cursor moves on
                 so one bad record never blocks the ones after it
  401 (a missing, unknown or revoked key), 403 (a read-only key),
  any other status, a network error
                 transient: the push stops with the ledger's reason and the
                 cursor stays on that record, so the next push, with a
                 valid push key, sends exactly what this one could not

The skill file is uploaded when this state file has not seen it accepted,
or when its SHA-256 differs from the one last accepted (a heal or an edit
rewrote it), so after a heal the ledger holds the current file; the
ledger keeps every distinct content as a numbered version.

--all reconsiders every record from the start (a record rejected before is
sent, and logged if rejected, again; a partial --all run can leave the
cursor lower than it was). --with-skill sends the skill file even if it
did not change.
--dry-run prints what would be sent and touches nothing: only
REELIER_CLOUD_URL is read (to take that ledger's cursor), no connection is
made, no file is written.

A state file that is not valid JSON is renamed aside to
push-state.json.corrupt-<epoch-ms> with a warning, and pushing starts over
from the first record (the ledger recognises what it already has).

Run records hold what your tools returned; review them before pushing them
anywhere.

Exit status: 0 when every record was pushed; 1 when the ledger rejected a
record permanently (the push still goes on to the records after it, and
names every rejected one), or when the push stopped early (the skill
upload failed, a transient answer, or the state file could not be
written); 2 for usage errors, a missing variable (the key, for a ledger
that needs one), an unparseable skill or a missing run history.

Examples:
  reelier push skills/weekly-bookings.skill.md
  reelier push --dry-run skills/weekly-bookings.skill.md
  reelier push --all skills/weekly-bookings.skill.md
  REELIER_CLOUD_URL=http://127.0.0.1:8787 REELIER_CLOUD_KEY=$KEY \
    reelier push --with-skill skills/weekly-bookings.skill.md`

type pushOptions struct {
	path      string
	all       bool
	dryRun    bool
	withSkill bool
	runsDir   string
}

func newPushCmd() *cobra.Command {
	var opts pushOptions
	cmd := &cobra.Command{
		Use:   "push SKILL [--all] [--dry-run] [--with-skill]",
		Short: "Send a skill's run records to a receipt ledger",
		Long:  pushLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return pushRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.all, "all", false, "reconsider every record from the start, not just those after the cursor")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would be sent; send and write nothing")
	f.BoolVar(&opts.withSkill, "with-skill", false, "upload the skill file even if it was uploaded before")
	f.StringVar(&opts.runsDir, "runs-dir", runlog.DefaultDir, "directory of run-record files")
	return cmd
}

func pushRun(cmd *cobra.Command, opts pushOptions) error {
	skills, err := loadSkills(cmd, []string{opts.path})
	if err != nil {
		return err
	}
	name := skills[0].skill.Name()
	po := push.Options{
		Skill: name, SkillMd: skills[0].src, RunsFile: runlog.Path(opts.runsDir, name), BundlesDir: runlog.BundleDir(opts.runsDir, name),
		StatePath: push.DefaultStatePath, All: opts.all, WithSkill: opts.withSkill,
	}
	if opts.dryRun {
		// The dry run plans from this ledger's cursor: it reads the URL,
		// never the key.
		po.Ledger = push.LedgerFromEnv(os.Getenv)
		return push.WriteDryRun(cmd.OutOrStdout(), po, opts.path)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := push.Resolve(ctx, os.Getenv, nil)
	if err != nil {
		return usageErrorf("%v", err)
	}
	po.Client = &push.Client{Config: cfg}
	pr := &push.Reporter{Out: cmd.OutOrStdout(), Errw: cmd.ErrOrStderr(), StatePath: po.StatePath}
	po.Report = pr.Event
	res, err := push.Push(ctx, po)
	if errors.Is(err, fs.ErrNotExist) {
		return usageErrorf("no run history for skill %q: %s does not exist (reelier run writes it)", name, po.RunsFile)
	}
	if err != nil {
		pr.Summary(res)
		fmt.Fprintf(pr.Errw, "reelier push: %v\n", err)
		return silentExit(exitFailed)
	}
	pr.Summary(res)
	switch {
	case res.Upload == push.UploadFailed:
		fmt.Fprintf(pr.Errw, "reelier push: %v; no record was sent\n", res.Stopped)
		return silentExit(exitFailed)
	case res.Stopped != nil:
		fmt.Fprintf(pr.Errw, "reelier push: stopped at record %d; nothing after it was sent, and the next push resumes there\n", res.CursorAfter)
		return silentExit(exitFailed)
	case res.Rejected > 0:
		pr.Rejections(res)
		return silentExit(exitFailed)
	}
	return nil
}
