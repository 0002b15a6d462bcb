package push

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/ledger/wire"
)

// WriteDryRun prints the plan of a push of the skill file at path:
// what would be sent, and that nothing was. A missing run history is a
// usage error.
func WriteDryRun(w io.Writer, po Options, path string) error {
	p, err := DryRun(po)
	if errors.Is(err, fs.ErrNotExist) {
		return exitstatus.Usagef("no run history for skill %q: %s does not exist (reelier run writes it)", po.Skill, po.RunsFile)
	}
	if err != nil {
		return exitstatus.Usagef("%v", err)
	}
	if p.StateCorrupt != nil {
		fmt.Fprintf(w, "dry run: %v; a real push would set it aside and start from record 0\n", p.StateCorrupt)
	}
	if p.UploadSkill {
		fmt.Fprintf(w, "dry run: would upload the skill file %s first (%s)\n", path, uploadWhy(p.Why))
	}
	switch {
	case p.Count() == 0:
		fmt.Fprintf(w, "dry run: nothing to push for %s: the cursor is at %d of %d record(s)\n", p.Skill, p.From, p.Records)
	default:
		fmt.Fprintf(w, "dry run: would push %d record(s) of %s: records %d to %d of %d (cursor %d -> at most %d)\n",
			p.Count(), p.Skill, p.From, p.To-1, p.Records, p.From, p.To)
	}
	fmt.Fprintln(w, "dry run: nothing was sent and nothing was written")
	return nil
}

// uploadWhy says in words why the skill file is sent.
func uploadWhy(w UploadReason) string {
	switch w {
	case ContentChanged:
		return "its content changed since the last upload"
	case Forced:
		return "--with-skill"
	}
	return "first upload"
}

// Reporter prints a push's events as they happen (Event, as
// Options.Report) and its outcome (Summary): progress on Out, warnings
// on Errw; StatePath is the state file rejected records are logged in.
type Reporter struct {
	Out, Errw io.Writer
	StatePath string
}

// Event prints one event of a push.
func (pr *Reporter) Event(e Event) {
	switch e.Kind {
	case Waiting:
		fmt.Fprintf(pr.Errw, "reelier push: another push holds %s; waiting for it to finish\n", e.Path)
	case StateSetAside:
		aside := "it could not be renamed and will be overwritten"
		if e.Path != "" {
			aside = "renamed it to " + e.Path
		}
		fmt.Fprintf(pr.Errw, "reelier push: warning: %v; %s and starting again from record 0\n", e.Err, aside)
	case CursorPastEnd:
		fmt.Fprintf(pr.Errw, "reelier push: warning: the cursor is past the end of the run history (was the file truncated or replaced?); use --all to push it from the start\n")
	case SkillUploaded:
		version := ""
		if e.Version > 0 {
			version = fmt.Sprintf(" as version %d", e.Version)
		}
		fmt.Fprintf(pr.Out, "skill file uploaded%s (%s)\n", version, uploadWhy(e.Why))
	case RecordDone:
		pr.record(e.Index, e.Outcome)
	}
}

func (pr *Reporter) record(i int, o Outcome) {
	if o.Unsigned != "" {
		fmt.Fprintf(pr.Errw, "reelier push: warning: record %d: %s\n", i, o.Unsigned)
	}
	switch o.Kind {
	case Pushed:
		sig := signatureWords(o)
		switch {
		case o.Duplicate:
			fmt.Fprintf(pr.Out, "record %d: pushed; the ledger already had it as %s\n", i, termtext.Line(o.ID))
		case o.ID != "":
			fmt.Fprintf(pr.Out, "record %d: pushed as %s%s\n", i, termtext.Line(o.ID), sig)
		default:
			fmt.Fprintf(pr.Out, "record %d: pushed%s\n", i, sig)
		}
	case Rejected:
		status := "not sent"
		if o.Status != 0 {
			status = fmt.Sprint(o.Status)
		}
		fmt.Fprintf(pr.Errw, "reelier push: warning: record %d rejected permanently (%s): %s; logged under \"rejected\" in %s, and the cursor moves past it\n",
			i, status, o.Reason, pr.StatePath)
	case Blocked:
		fmt.Fprintf(pr.Errw, "reelier push: record %d: %v\n", i, o.Err)
	case NotSent:
		fmt.Fprintf(pr.Out, "record %d: not sent: its run failed on purpose (reelier run --fail), so it says nothing about the servers\n", i)
	}
}

// signatureWords is what the ledger said of a pushed record's signature,
// as ", signed: verified (key …)" or "" when it said nothing.
func signatureWords(o Outcome) string {
	switch o.Signature {
	case wire.SignatureUnsigned:
		return ""
	case "":
		if o.Signed {
			return ", signed (the ledger did not say whether it verified it)"
		}
		return ""
	case "untrusted":
		return ", signed, not trusted by the ledger" + signer(o.Signer)
	}
	return ", " + termtext.Line(o.Signature) + signer(o.Signer)
}

func signer(s string) string {
	if s == "" {
		return ""
	}
	return " (" + termtext.Line(s) + ")"
}

// Summary prints the one-line account of a
func (pr *Reporter) Summary(r Result) {
	skill := map[UploadStatus]string{
		AlreadyUploaded: "skill already uploaded",
		Uploaded:        "skill uploaded",
		UploadFailed:    "skill upload failed",
	}[r.Upload]
	pushed := fmt.Sprintf("%d pushed", r.Pushed)
	if r.Duplicates > 0 {
		pushed += fmt.Sprintf(" (%d already on the ledger)", r.Duplicates)
	}
	notSent := ""
	if r.NotSent > 0 {
		notSent = fmt.Sprintf(", %d not sent (--fail)", r.NotSent)
	}
	fmt.Fprintf(pr.Out, "%s: %s; %s, %d rejected%s; cursor %d -> %d of %d record(s)\n",
		r.Skill, skill, pushed, r.Rejected, notSent, r.CursorBefore, r.CursorAfter, r.Records)
}

// Rejections prints, after the summary, which records of the push the
// ledger rejected permanently: the reason a push exits 1 though it went to
// the end.
func (pr *Reporter) Rejections(r Result) {
	idx := make([]string, len(r.RejectedIndexes))
	for i, n := range r.RejectedIndexes {
		idx[i] = strconv.Itoa(n)
	}
	noun := "record"
	if len(idx) > 1 {
		noun = "records"
	}
	fmt.Fprintf(pr.Errw, "reelier push: the ledger rejected %d record(s) of %s permanently (%s %s); they are logged under \"rejected\" in %s and will not be sent again unless --all\n",
		r.Rejected, r.Skill, noun, strings.Join(idx, ", "), pr.StatePath)
}
