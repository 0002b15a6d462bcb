package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/replay/prcomment"
	"github.com/reelier/reelier/replay/receipt"
	"github.com/spf13/cobra"
)

const ciCommentLong = `Post the replay's pull-request comment, or update the one an earlier run
of the same workflow job posted: what the Reelier Action runs after the
replay, on pull_request events.

The comment shows the suite's verdict, one row per skill (verdict, steps,
failed, healed, open questions, and its page on the receipt ledger when
--cloud-url or $REELIER_CLOUD_URL is set), the failed and the healed steps
at file:line, the count of open questions, and a link to the workflow run
(GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID). Skill
names, step titles and failures are escaped: no Markdown, HTML or
@mention gets through.

Its first line is a hidden marker naming the workflow and the job
(<!-- reelier:pr-comment workflow="…" job="…" -->): the comment is found
again by it in the pull request's comments (GITHUB_API_URL, every page)
and updated in place, so a pull request has one Reelier comment per
workflow job, never a pile.

It reads the runner's variables: GITHUB_EVENT_NAME (pull_request or
pull_request_target; any other event is skipped with a notice),
GITHUB_EVENT_PATH (the pull request's number), GITHUB_REPOSITORY,
GITHUB_API_URL, GITHUB_WORKFLOW, GITHUB_JOB, GITHUB_SHA and GITHUB_TOKEN
(the job's token, which needs pull-requests: write).

--print writes the comment to standard output and posts nothing (no
variable is needed); --body-file FILE also keeps it in FILE.

A refusal of the API (403: the token lacks pull-requests: write; a 5xx)
or an unreachable API is a ::warning:: workflow command and exit 0: the
comment is a courtesy, and the job's verdict, summary and annotations
stand whatever becomes of it.

Exit status: 0 posted, updated, skipped (not a pull request, no token) or
refused by the API (a warning says so); 2 bad usage or input (no
--runs-dir, an event file that cannot be read, a history that cannot be
read).

Examples:
  reelier ci comment --runs-dir "$RUNS_DIR" skills/
  reelier ci comment --print --runs-dir .reelier/runs skills/weekly.skill.md`

type ciCommentOptions struct {
	runsDir, cloudURL, bodyFile string
	print                       bool
}

func newCICommentCmd() *cobra.Command {
	var opts ciCommentOptions
	cmd := &cobra.Command{
		Use:   "comment --runs-dir DIR [--cloud-url URL] [--print] SKILL…",
		Short: "Post (or update) the replay's pull-request comment",
		Long:  ciCommentLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return ciComment(cmd, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.runsDir, "runs-dir", "", "the run records of this job: the newest record of each SKILL in `DIR`")
	f.StringVar(&opts.cloudURL, "cloud-url", os.Getenv("REELIER_CLOUD_URL"), "the receipt ledger's base `URL`, whose skill pages the comment links (default $REELIER_CLOUD_URL)")
	f.BoolVar(&opts.print, "print", false, "write the comment to standard output and post nothing")
	f.StringVar(&opts.bodyFile, "body-file", "", "also keep the comment in `FILE`")
	return cmd
}

func ciComment(cmd *cobra.Command, opts ciCommentOptions, args []string) error {
	if opts.runsDir == "" {
		return usageErrorf("ci comment needs --runs-dir DIR: the folder of this job's run records")
	}
	out := cmd.OutOrStdout()
	event := os.Getenv("GITHUB_EVENT_NAME")
	isPR := event == "pull_request" || event == "pull_request_target"
	if !isPR && !opts.print {
		what := "not a pull request event"
		if event != "" {
			what += " (" + termtext.Line(event) + ")"
		}
		fmt.Fprintf(out, "::notice title=Reelier comment::%s: no pull-request comment.\n", what)
		return nil
	}
	files, err := expandSkillPaths(args)
	if err != nil {
		return err
	}
	r, err := receipt.LoadCIReport(opts.runsDir, files)
	if err != nil {
		return usageErrorf("%v", err)
	}
	info := receipt.CommentInfo{
		Marker:    prcomment.Marker(os.Getenv("GITHUB_WORKFLOW"), os.Getenv("GITHUB_JOB")),
		Workflow:  os.Getenv("GITHUB_WORKFLOW"),
		Job:       os.Getenv("GITHUB_JOB"),
		Commit:    os.Getenv("GITHUB_SHA"),
		LedgerURL: opts.cloudURL,
	}
	if server, repo, id := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID"); server != "" && repo != "" && id != "" {
		info.RunURL = strings.TrimRight(server, "/") + "/" + repo + "/actions/runs/" + id
	}
	var ev prcomment.Event
	if isPR {
		path := os.Getenv("GITHUB_EVENT_PATH")
		if path == "" {
			return usageErrorf("ci comment: GITHUB_EVENT_PATH is not set: the runner names the event file there")
		}
		if ev, err = prcomment.ReadEvent(path); err != nil {
			return usageErrorf("ci comment: %s", termtext.Line(err.Error()))
		}
		if ev.HeadSHA != "" {
			// The pull request's head, not the merge commit GITHUB_SHA names.
			info.Commit = ev.HeadSHA
		}
	}
	var body bytes.Buffer
	if err := r.Comment(&body, info); err != nil {
		return err
	}
	if opts.bodyFile != "" {
		if err := atomicfile.Write(opts.bodyFile, body.Bytes(), 0o644); err != nil {
			return &exitError{Code: exitTool, Err: err}
		}
	}
	if opts.print {
		_, err := out.Write(body.Bytes())
		return err
	}
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		fmt.Fprintln(out, "::warning title=Reelier comment::No GITHUB_TOKEN: the pull-request comment was not posted (the Action passes its github-token input).")
		return nil
	}
	api := os.Getenv("GITHUB_API_URL")
	if api == "" {
		api = "https://api.github.com"
	}
	res, err := prcomment.Post(cmd.Context(), prcomment.Options{APIURL: api, Repository: os.Getenv("GITHUB_REPOSITORY"), Number: ev.Number, Token: token, Marker: info.Marker, Body: body.String()})
	if err != nil {
		var apiErr *prcomment.APIError
		what := "the pull-request comment was not posted"
		if !errors.As(err, &apiErr) {
			what += " (the API could not be reached)"
		}
		// A workflow command is one line: the message is escaped as the
		// runner decodes it.
		msg := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(termtext.Line(err.Error()))
		fmt.Fprintf(out, "::warning title=Reelier comment::%s; the verdict, the job summary and the annotations stand: %s\n", what, msg)
		return nil
	}
	verb := "posted"
	if res.Updated {
		verb = "updated"
	}
	fmt.Fprintf(out, "Reelier: %s the pull-request comment %s\n", verb, termtext.Line(res.URL))
	return nil
}
