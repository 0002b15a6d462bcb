package receipt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
)

// pushStatuses are the values of `reelier summary --push` and what each
// says about the receipt.
var pushStatuses = map[string]string{
	"pushed":         "pushed to the receipt ledger.",
	"failed":         "**the push failed** — the replay's verdict stands; the push step's log above says why. The record was not delivered: only a later `reelier push` that finds this push's state (.reelier/push-state.json in the folder it ran in) resumes at it; in a CI job whose folder is discarded, nothing will.",
	"skipped-no-key": "not pushed: no cloud key is configured (local-only run).",
	"not-attempted":  "not pushed: the replay did not pass, so no push was attempted.",
}

// PushStatuses lists the values Summary.Push may take, sorted.
func PushStatuses() []string { return slices.Sorted(maps.Keys(pushStatuses)) }

// Summary is what `reelier summary` renders: a run history's newest
// record as GitHub-flavoured Markdown.
type Summary struct {
	// Path is the run history file as named.
	Path string
	// Skill is the skill file that was replayed, named when there is no
	// record; may be empty.
	Skill string
	// Push is what became of the receipt (one of PushStatuses), or "".
	Push string
	// History is the file's content; nil when the file does not exist.
	History *runlog.History
}

// ReadSummary reads the run history at path for Summary: a file that
// does not exist gives a summary that says so; only a file that exists
// and cannot be read is an error. With skill, only that file's runs
// count (files sharing a frontmatter name share a history).
func ReadSummary(path, skill, push string) (Summary, error) {
	s := Summary{Path: path, Skill: skill, Push: push}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return s, err
	}
	if s.History, err = runlog.Read(bytes.NewReader(data)); err != nil {
		return s, fmt.Errorf("%s: %v", path, err)
	}
	if skill != "" {
		s.History, _ = s.History.ForFile(filepath.ToSlash(skill))
	}
	return s, nil
}

// Markdown writes the summary: the newest record's verdict, totals, LLM
// use and steps; or, when there is none, or the newest line of the
// history is not a readable record, says so and shows no verdict.
func (s Summary) Markdown(w io.Writer) error {
	m := &markdown{Summary: s}
	h := s.History
	switch {
	case h == nil || len(h.Entries) == 0:
		m.noRecord()
	case len(h.Corrupt) > 0 && h.Corrupt[len(h.Corrupt)-1].Line > h.Entries[len(h.Entries)-1].Line:
		m.tornNewest(h.Corrupt[len(h.Corrupt)-1], h.Entries[len(h.Entries)-1])
	default:
		m.record(h.Entries[len(h.Entries)-1])
	}
	m.pushLine()
	_, err := io.WriteString(w, m.b.String())
	return err
}

// markdown builds one summary.
type markdown struct {
	Summary
	b strings.Builder
}

func (m *markdown) printf(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

// noRecord says plainly that there is nothing to show.
func (m *markdown) noRecord() {
	m.printf("## ⚠️ Reelier replay: no run record was written\n\n")
	what := "The replay"
	if m.Skill != "" {
		what = "The replay of " + code(m.Skill)
	}
	switch {
	case m.History == nil:
		m.printf("%s left no run record (%s does not exist), so there is no verdict and there are no numbers to show. ", what, code(m.Path))
	default:
		m.printf("%s left no readable run record: %s holds %d line(s), none of them a run record, so there is no verdict and there are no numbers to show. ", what, code(m.Path), len(m.History.Corrupt))
	}
	m.printf("This happens when the skill file is missing or does not parse, or the run never started. The replay step's log above says what went wrong.\n")
}

// tornNewest says that the newest line is not a record (a run cut short
// while writing it, say) rather than passing off an older run's verdict
// as this one's.
func (m *markdown) tornNewest(c runlog.Corrupt, older runlog.Entry) {
	m.printf("## ⚠️ Reelier replay: the newest record is unreadable\n\n")
	m.printf("The newest record is unreadable (%s), so there is no verdict for this run and there are no numbers to show. ",
		code(fmt.Sprintf("%s:%d: %v", m.Path, c.Line, c.Err)))
	m.printf("An older record (line %d, %s, started %s) is not shown: its verdict is not this run's. ",
		older.Line, older.Record.RunVerdict(), esc(older.Record.StartedAt))
	m.printf("A run stopped while it wrote its record, or a disk that filled up, leaves a line like this; the replay step's log above says what happened.\n")
}

// record renders a run record.
func (m *markdown) record(e runlog.Entry) {
	r := e.Record
	t := runlog.CountSteps(r.Steps)
	switch r.RunVerdict() {
	case runlog.VerdictPassed:
		m.printf("## ✅ Reelier replay passed: %s\n\n", code(r.Skill))
	case runlog.VerdictUnchecked:
		m.printf("## ⚠️ Reelier replay unchecked — nothing was verified: %s\n\n", code(r.Skill))
	case runlog.VerdictConfig:
		m.printf("## 🔧 Reelier replay stopped by its set-up (a refused write, an input that could not be sent, an approval or a policy that held a step back; not drift): %s\n\n", code(r.Skill))
	case runlog.VerdictInterrupted:
		m.printf("## ⏹️ Reelier replay interrupted: %s\n\n", code(r.Skill))
		m.printf("> The run was stopped before it finished: what ran is below, the steps it did not reach are skipped. Neither passed nor failed.\n\n")
	default:
		m.printf("## ❌ Reelier replay failed: %s\n\n", code(r.Skill))
	}
	if inj := r.Injected; inj != nil {
		m.printf("> Failed on purpose: step %d was given an injected failure (`--fail %d=%s`), not a real one; `reelier push` does not send this run.\n\n", inj.Step, inj.Step, inj.Kind)
	}
	if r.Mock() {
		m.printf("> Against `reelier mock`: the skill was checked against a recording served back, not a live server.\n\n")
	}
	m.printf("| steps | passed | unchecked | skipped | failed | duration |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n")
	m.printf("| %d | %d | %d | %d | %d | %s |\n\n", t.Steps, t.Passed, t.Unchecked, t.Skipped, t.Failed, duration(t.Ms))
	if t.Unchecked > 0 {
		m.printf("> **Unchecked is not passed.** %d step(s) ran without asserts: they ran without incident, but nothing about their results was verified, so they are not counted as passed.\n\n", t.Unchecked)
	}
	switch {
	case e.Legacy:
		m.printf("> This record was written before honest totals existed; the counts above are derived from its steps.\n\n")
	case e.Inconsistent:
		m.printf("> The totals stored in this record do not match its steps; the counts above are derived from the steps.\n\n")
	}
	if note := OpenQuestionsNote(r.OpenQuestions); note != "" {
		file := "the skill"
		if r.Path != "" {
			file = code(r.Path)
		}
		m.printf("> **%s** under `## Open questions` in %s: the replay cannot vouch for what they ask. Resolve one by deleting it or checking it off (`- [x]`).\n\n", esc(note), file)
	}
	if d := r.ToolDrift; d != nil && len(d.Tools) > 0 {
		if d.Ignored {
			m.printf("> **Tool drift, ignored** (`--ignore-tool-drift`): the steps ran against tools that differ from the skill's `reelier-tools`:\n")
		} else {
			m.printf("> **Tool drift:** the servers' tools differ from the skill's `reelier-tools`, so no step ran:\n")
		}
		for _, line := range replay.DriftLines(d) {
			m.printf("> - %s\n", esc(line))
		}
		m.printf("\n")
	}
	m.tokens(r.Steps, t)
	m.steps(r.Steps)
	n := len(m.History.Entries)
	m.printf("<sub>Run record %d of %d in %s · started %s · finished %s</sub>\n", n, n, code(m.Path), esc(r.StartedAt), esc(r.FinishedAt))
	if c := len(m.History.Corrupt); c > 0 {
		m.printf("\n> %d line(s) of %s are not run records and were skipped.\n", c, code(m.Path))
	}
}

// tokens reports LLM use, and only when escalation ran: a 0 would read as
// "escalation was considered and cost nothing".
func (m *markdown) tokens(steps []runlog.StepRecord, t runlog.Totals) {
	escalated, healed := 0, 0
	for _, st := range steps {
		if st.LLM != nil || st.EscalationAttempted != nil {
			escalated++
		}
		if st.Level > 0 {
			healed++
		}
	}
	if escalated == 0 {
		return
	}
	m.printf("**LLM tokens:** %d input · %d output — escalation ran on %d step(s), %d healed.\n\n", t.LLMInputTokens, t.LLMOutputTokens, escalated, healed)
}

// outcomeMark is how each outcome shows in the step table.
var outcomeMark = map[runlog.Outcome]string{
	runlog.Passed: "✅ passed", runlog.Unchecked: "⚪ unchecked", runlog.Failed: "❌ failed", runlog.Skipped: "⏭️ skipped",
	runlog.Interrupted: "⏹️ interrupted in flight",
}

// steps renders the collapsible per-step table.
func (m *markdown) steps(steps []runlog.StepRecord) {
	m.stepTable(fmt.Sprintf("Steps (%d)", len(steps)), steps)
}

// stepTable renders the per-step table collapsed under label (Markdown).
func (m *markdown) stepTable(label string, steps []runlog.StepRecord) {
	m.printf("<details>\n<summary>%s</summary>\n\n", label)
	m.printf("| # | step | outcome | healed at | duration | note |\n| ---: | --- | --- | --- | ---: | --- |\n")
	for _, st := range steps {
		level, dur, note := "—", duration(st.Ms), ""
		switch st.Outcome {
		case runlog.Skipped:
			dur, note = "—", "not run: "+skipReason(st.Skip)
		case runlog.Unchecked:
			note = "no asserts: it ran, nothing was verified"
		case runlog.Interrupted:
			note = "the request was sent; the server may have acted on it"
		case runlog.Failed:
			if len(st.Failures) > 0 {
				note = clipNote(st.Failures[0])
			}
		}
		if st.Level > 0 {
			level = fmt.Sprintf("L%d", st.Level)
			if st.Why != nil && st.Why.Change != "" {
				note = clipNote(st.Why.Change)
			}
		}
		if st.EscalationAttempted != nil && st.Level == 0 {
			level = fmt.Sprintf("not healed (tried L%d)", *st.EscalationAttempted)
		}
		m.printf("| %d | %s | %s | %s | %s | %s |\n", st.N, esc(st.Title), outcomeMark[st.Outcome], level, dur, esc(note))
	}
	m.printf("\n</details>\n\n")
}

// pushLine says what became of the receipt, when the caller said.
func (m *markdown) pushLine() {
	if m.Push == "" {
		return
	}
	m.printf("\n**Receipt:** %s\n", pushStatuses[m.Push])
}

// duration renders milliseconds for people.
func duration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// maxNote is the longest failure note shown in a table cell.
const maxNote = 200

// clipNote shortens a note to maxNote characters.
func clipNote(s string) string {
	r := []rune(s)
	if len(r) <= maxNote {
		return s
	}
	return string(r[:maxNote]) + "…"
}

// lineBreaks become spaces in a table cell.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// markdownEscaper makes tags inert and escapes what Markdown would read
// as formatting or a table border, in one pass.
var markdownEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "~", `\~`,
)

// esc makes recorded text — titles, failures quoting response bodies —
// safe inside a Markdown table and on a terminal: one line, no HTML, no
// formatting, no control characters or bidi overrides (termtext).
func esc(s string) string {
	return markdownEscaper.Replace(termtext.Line(lineBreaks.Replace(s)))
}

// code renders text as inline code, escaped like any other cell: a
// backtick in a name cannot end the span early.
func code(s string) string { return "<code>" + esc(s) + "</code>" }
