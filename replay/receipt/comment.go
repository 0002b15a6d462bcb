package receipt

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/replay/runlog"
)

// CommentInfo is what a pull-request comment says besides the runs.
type CommentInfo struct {
	// Marker is the hidden first line that finds the comment again on the
	// next run (prcomment.Marker).
	Marker string
	// Workflow and Job name the workflow and job that ran (shown).
	Workflow, Job string
	// Commit is the commit that ran (shown by its first 7 characters).
	Commit string
	// RunURL is the workflow run's page; "" for none.
	RunURL string
	// LedgerURL is the receipt ledger's base URL; its skill pages are
	// linked when it is an http(s) URL.
	LedgerURL string
}

// Bounds of a comment: GitHub refuses a body over 65,536 characters.
const (
	// maxCommentSteps bounds the failed and the healed steps listed.
	maxCommentSteps = 25
	// MaxCommentBytes bounds the whole body; what is past it is cut at a
	// line, with a note pointing at the job summary.
	MaxCommentBytes = 60000
)

// Comment writes the pull-request comment: the marker, the suite's
// verdict, one row per skill (verdict, steps, failed, healed, open
// questions, and its ledger page), the failed and healed steps at
// file:line, and the links. Every text from a skill or a run is escaped
// (commentEsc): no Markdown, HTML or @mention gets through.
func (r *CIReport) Comment(w io.Writer, c CommentInfo) error {
	var b strings.Builder
	if c.Marker != "" {
		b.WriteString(c.Marker + "\n")
	}
	v := r.Verdict()
	n := len(r.Skills)
	var failed, broken, questions int
	for _, s := range r.Skills {
		switch {
		case s.Record == nil:
			broken++
		case s.Record.RunVerdict() == runlog.VerdictFailed, s.Record.RunVerdict() == runlog.VerdictConfig:
			failed++
		}
		if s.Record != nil {
			questions += len(s.Record.OpenQuestions)
		}
	}
	switch v {
	case runlog.VerdictPassed:
		fmt.Fprintf(&b, "### ✅ Reelier: %d of %d skill(s) passed", n, n)
	case runlog.VerdictUnchecked:
		b.WriteString("### ⚠️ Reelier: nothing failed, but a run checked nothing (unchecked is not passed)")
	case runlog.VerdictInterrupted:
		b.WriteString("### ⏹️ Reelier: the replay was interrupted")
	case "":
		b.WriteString("### ⚠️ Reelier: no run record was written")
	default:
		var parts []string
		if failed > 0 {
			parts = append(parts, fmt.Sprintf("%d failed", failed))
		}
		if broken > 0 {
			parts = append(parts, fmt.Sprintf("%d could not run", broken))
		}
		fmt.Fprintf(&b, "### ❌ Reelier: of %d skill(s), %s", n, strings.Join(parts, ", "))
	}
	b.WriteString("\n\n")
	ledger := ledgerBase(c.LedgerURL)
	if n > 0 {
		b.WriteString("| skill | verdict | steps | failed | healed | open questions |")
		if ledger != "" {
			b.WriteString(" receipts |")
		}
		b.WriteString("\n| --- | --- | ---: | ---: | ---: | ---: |")
		if ledger != "" {
			b.WriteString(" --- |")
		}
		b.WriteString("\n")
		for _, s := range r.Skills {
			if s.Record == nil {
				fmt.Fprintf(&b, "| %s | ⚠️ did not run | — | — | — | — |", commentCode(s.File))
				if ledger != "" {
					b.WriteString(" — |")
				}
				b.WriteString("\n")
				continue
			}
			t := runlog.CountSteps(s.Record.Steps)
			healed := 0
			for _, st := range s.Record.Steps {
				if st.Level > 0 {
					healed++
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d |", commentCode(s.File), verdictMark[s.Record.RunVerdict()], t.Steps, t.Failed, healed, len(s.Record.OpenQuestions))
			if ledger != "" {
				// A name the ledger accepts (the Agent Skills rule: lower-case
				// letters, digits, hyphens) is safe in a link as it is.
				if name := s.Record.Skill; name != "" && len(agentskill.NameProblems(name)) == 0 {
					fmt.Fprintf(&b, " [%s](%s/skills/%s) |", commentEsc(name), ledger, url.PathEscape(name))
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	r.commentSteps(&b, "Failed steps", func(st runlog.StepRecord) bool { return st.Outcome == runlog.Failed }, func(s CISkill, st runlog.StepRecord) string {
		why := "the step failed"
		if len(st.Failures) > 0 {
			why = st.Failures[0]
		}
		return fmt.Sprintf("- ❌ %s step %d — %s: %s\n", s.commentAt(st.N), st.N, commentEsc(st.Title), commentEsc(clipNote(why)))
	})
	r.commentSteps(&b, "Healed steps — not in the repository until the heal patch is committed", func(st runlog.StepRecord) bool { return st.Level > 0 }, func(s CISkill, st runlog.StepRecord) string {
		change := ""
		if st.Why != nil && st.Why.Change != "" {
			change = ": " + commentEsc(clipNote(st.Why.Change))
		}
		return fmt.Sprintf("- ↻ %s step %d — %s, healed at L%d%s\n", s.commentAt(st.N), st.N, commentEsc(st.Title), st.Level, change)
	})
	if broken > 0 {
		fmt.Fprintf(&b, "**%d skill(s) did not run** (a parse error, missing inputs, a refused write or a server that did not start); the job summary says which and why.\n\n", broken)
	}
	if questions > 0 {
		fmt.Fprintf(&b, "**Open questions:** %d unresolved — what the compiler could not know, which a pass does not vouch for (`## Open questions` in each skill; the job's annotations show them).\n\n", questions)
	}
	var links []string
	if u := httpURL(c.RunURL); u != "" {
		links = append(links, fmt.Sprintf("[the workflow run and its job summary](%s)", u))
	}
	if ledger != "" {
		links = append(links, fmt.Sprintf("[the receipt ledger](%s/)", ledger))
	}
	if len(links) > 0 {
		fmt.Fprintf(&b, "Receipts: %s.\n\n", strings.Join(links, " · "))
	}
	var who []string
	if c.Workflow != "" {
		who = append(who, "workflow "+commentCode(c.Workflow))
	}
	if c.Job != "" {
		who = append(who, "job "+commentCode(c.Job))
	}
	foot := "<sub>Reelier updates this comment on every run"
	if len(who) > 0 {
		foot += " of " + strings.Join(who, ", ")
	}
	if commit := shortCommit(c.Commit); commit != "" {
		foot += "; this run replayed " + commentCode(commit)
	}
	foot += ".</sub>\n"
	b.WriteString(foot)
	body := b.String()
	if len(body) > MaxCommentBytes {
		cut := strings.LastIndexByte(body[:MaxCommentBytes-200], '\n')
		body = body[:cut+1] + "\n…the comment is cut here (GitHub bounds its length); the job summary has every step.\n\n" + foot
	}
	_, err := io.WriteString(w, body)
	return err
}

// commentSteps lists the steps keep picks, at most maxCommentSteps, under
// a heading.
func (r *CIReport) commentSteps(b *strings.Builder, title string, keep func(runlog.StepRecord) bool, line func(CISkill, runlog.StepRecord) string) {
	var lines []string
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		for _, st := range s.Record.Steps {
			if keep(st) {
				lines = append(lines, line(s, st))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s** (%d):\n\n", title, len(lines))
	for _, l := range lines[:min(len(lines), maxCommentSteps)] {
		b.WriteString(l)
	}
	if len(lines) > maxCommentSteps {
		fmt.Fprintf(b, "- …and %d more: the job summary lists every one.\n", len(lines)-maxCommentSteps)
	}
	b.WriteString("\n")
}

// commentAt renders a step's place as file:line in code.
func (s CISkill) commentAt(n int) string {
	if l := s.line(n); l > 0 {
		return commentCode(fmt.Sprintf("%s:%d", s.File, l))
	}
	return commentCode(s.File)
}

// mentionBreaker puts a zero-width space after each @, so that a name in
// a skill or a response never pings anyone.
var mentionBreaker = strings.NewReplacer("@", "@\u200b")

// commentEsc is esc for a pull-request comment: one line, no HTML, no
// Markdown formatting, no control or bidi characters, no @mention.
func commentEsc(s string) string { return mentionBreaker.Replace(esc(s)) }

// commentCode renders text as inline code in a comment.
func commentCode(s string) string { return "<code>" + commentEsc(s) + "</code>" }

// httpURL is u when it is an absolute http(s) URL with a host and holds
// nothing Markdown would end a link at; "" otherwise.
func httpURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || p.User != nil || strings.ContainsAny(u, " ()<>[]\"'`\\\n\r\t") {
		return ""
	}
	return u
}

// ledgerBase is the ledger's base URL without its trailing slash, or "".
func ledgerBase(u string) string { return strings.TrimRight(httpURL(u), "/") }

// shortCommit is the first 7 characters of a hex commit id; "" for
// anything else.
func shortCommit(c string) string {
	if len(c) < 7 {
		return ""
	}
	for _, r := range c {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return ""
		}
	}
	return c[:7]
}
