package scan

import (
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
)

// skipReasons orders the reasons a file is not read, for the listing.
var skipReasons = []string{SkipUnreadable, SkipReadError, SkipBinary, SkipBroken, SkipLoop, SkipDuplicate}

// WriteSummary writes the headline and the replayable-rate statistics:
//
//	Found N session(s) in your agent history · M contain replayable workflows.
//	Replayable rate: X/Y sessions fully read-only (Z%).
//	K session(s) blocked ONLY by unknown-verb tools (top blockers: a ×2, b ×1)
//	Looked in: DIR
func (r *Result) WriteSummary(w io.Writer) {
	defer r.writeWhere(w)
	fmt.Fprintf(w, "Found %d session(s) in your agent history · %d contain replayable workflows.\n", r.Sessions, len(r.Replayable))
	fmt.Fprintf(w, "Replayable rate: %d/%d sessions fully read-only (%.0f%%).\n", r.Rate.ReadOnly, r.Rate.Replayable, r.Rate.Percent())
	if r.Rate.UnknownOnly == 0 {
		fmt.Fprintf(w, "0 session(s) blocked ONLY by unknown-verb tools.\n")
		return
	}
	var top []string
	for _, b := range r.Rate.Blockers {
		top = append(top, fmt.Sprintf("%s ×%d", b.Tool, b.Sessions))
	}
	fmt.Fprintf(w, "%d session(s) blocked ONLY by unknown-verb tools (top blockers: %s)\n", r.Rate.UnknownOnly, strings.Join(top, ", "))
}

// writeWhere names the folder that was read, so that "Found 0" says where
// nothing was found.
func (r *Result) writeWhere(w io.Writer) {
	if r.Dir != "" {
		fmt.Fprintf(w, "Looked in: %s\n", termtext.Line(r.Dir))
	}
}

// WriteListing writes one numbered line per replayable session, then what
// was not offered or not read.
func (r *Result) WriteListing(w io.Writer) {
	for i, e := range r.Replayable {
		fmt.Fprintf(w, "  [%d] %s\n", i+1, e.Line())
	}
	if n := r.Sessions - len(r.Replayable); n > 0 {
		fmt.Fprintf(w, "%d session(s) with no replayable calls are not offered: there is nothing honest to compile.\n", n)
	}
	if s := r.skippedFiles(); s != "" {
		fmt.Fprintf(w, "Files not read: %s.\n", s)
	}
	if s := r.Lines.Problems(); s != "" {
		fmt.Fprintf(w, "Lines not read: %s.\n", s)
	}
}

// Line is the entry's listing line: project · time · calls — servers.
func (e *Entry) Line() string {
	when := "time unknown"
	if !e.StartedAt.IsZero() {
		when = e.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	used := append([]string(nil), e.Servers...)
	if e.Builtins {
		used = append(used, "http builtins")
	}
	return fmt.Sprintf("%s · %s · %d replayable call(s) — %s", e.Project, when, e.Calls, strings.Join(used, ", "))
}

// skippedFiles renders the files not read: "unreadable ×2, binary file ×1".
func (r *Result) skippedFiles() string {
	var parts []string
	for _, k := range skipReasons {
		if n := r.Skipped[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	return strings.Join(parts, ", ")
}
