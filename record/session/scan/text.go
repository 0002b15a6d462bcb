package scan

import (
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
)

// skipReasons orders the reasons a file is not read, for the listing.
var skipReasons = []string{SkipUnreadable, SkipReadError, SkipBinary, SkipBroken, SkipLoop, SkipDuplicate}

// WriteSummary writes the headline and the replayable-rate statistics:
//
//	Found N session(s) in your agent history · M contain replayable workflows.
//	Replayable rate: X/Y sessions fully read-only (Z%).
//	K session(s) blocked ONLY by unknown-verb tools (top blockers: a ×2, b ×1)
//	Looked in:
//	  DIR — claude: 3 read, 2 replayable, 1 skipped; 1 file not read
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

// writeWhere names each folder that was looked in and what it held, per
// host, so that "Found 0" says where nothing was found.
func (r *Result) writeWhere(w io.Writer) {
	if len(r.Folders) == 0 {
		return
	}
	fmt.Fprintln(w, "Looked in:")
	for _, f := range r.Folders {
		fmt.Fprintf(w, "  %s\n", f.Line())
	}
}

// Line is the folder's line: where, and what each host's sessions there
// came to ("read" sessions, "replayable" ones, "skipped" ones with no
// replayable call), and the files not read.
func (f Folder) Line() string {
	where := termtext.Line(f.Dir)
	if f.Host != "" {
		where += " (" + f.Host + ")"
	}
	if f.Missing {
		return where + " — not there"
	}
	var parts []string
	for _, c := range f.Found {
		parts = append(parts, fmt.Sprintf("%s: %d read, %d replayable, %d skipped", c.Host, c.Sessions, c.Replayable, c.Skipped))
	}
	if len(parts) == 0 {
		parts = append(parts, "no sessions")
	}
	line := where + " — " + strings.Join(parts, "; ")
	if f.SkippedFiles > 0 {
		line += fmt.Sprintf("; %s not read", words.Count(f.SkippedFiles, "file"))
	}
	return line
}

// WriteListing writes one numbered entry per workflow — a session, or
// for a workflow done in several sessions "you did this N times" and the
// sessions — then what was not offered or not read.
func (r *Result) WriteListing(w io.Writer) {
	for i, g := range r.Groups {
		if g.Count == 1 {
			fmt.Fprintf(w, "  [%d] %s\n", i+1, r.Replayable[g.Sessions[0]].Line())
			continue
		}
		fmt.Fprintf(w, "  [%d] you did this %d times: %s\n", i+1, g.Count, termtext.Line(g.Steps()))
		for _, k := range g.Sessions {
			fmt.Fprintf(w, "        %s\n", r.Replayable[k].Line())
		}
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

// Steps is the workflow for reading: its tools in order, without their
// servers, "create_item → get_item".
func (g Group) Steps() string {
	names := make([]string, len(g.Workflow))
	for i, s := range g.Workflow {
		names[i] = s[strings.LastIndexByte(s, '/')+1:]
	}
	return strings.Join(names, " → ")
}

// Line is the entry's listing line: project · time · calls — servers ·
// host.
func (e *Entry) Line() string {
	when := "time unknown"
	if !e.StartedAt.IsZero() {
		when = e.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	used := append([]string(nil), e.Servers...)
	if e.Builtins {
		used = append(used, "http builtins")
	}
	return termtext.Line(fmt.Sprintf("%s · %s · %d replayable call(s) — %s · %s", e.Project, when, e.Calls, strings.Join(used, ", "), e.Host))
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
