package receipt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
)

// CIReport is what a CI job made of a suite of skills: each skill file's
// newest run record in the job's runs folder, or why it has none. It
// renders as the job summary (Markdown), as GitHub workflow commands
// (annotations at the failing step's line) and as the job's outputs.
type CIReport struct {
	Skills []CISkill
	// Push is what became of the receipts (one of CIPushStatuses), or "".
	Push string
	// PushPolicy is the Action's push input (always, passed, never).
	PushPolicy string
	// Patch is the file the heals of this run were written to as a
	// patch, or "" when nothing healed. Only its base name is shown.
	Patch string
}

// CISkill is one skill file of the suite.
type CISkill struct {
	// File is the skill file as the job named it.
	File string
	// Skill is the parsed file; nil when it could not be read.
	Skill *ast.Skill
	// Diagnostics are the parse errors of a file that does not parse.
	Diagnostics ast.Diagnostics
	// ReadErr says why the file could not be read.
	ReadErr error
	// Record is the file's newest run record in the runs folder; nil
	// when the run wrote none.
	Record *runlog.Record
	// Unreadable says the newest line of the history was not a record.
	Unreadable error
}

// ciPushStatuses are the push step's outcomes and what each says. No
// status promises a retry: in CI the run records and the push state live
// in the job's temporary folder, which the runner throws away.
var ciPushStatuses = map[string]string{
	"pushed":         "pushed to the receipt ledger (push: %s).",
	"failed":         "**the push failed** — the verdict above stands, but at least one run record did not reach the ledger, and nothing will send it later: the records and the push state lived in this job's temporary folder, which the runner discards when the job ends. The push step's log says which record and why. To deliver it, keep the run records (the action's `runs-dir` output, uploaded as an artifact) and push them with `reelier push --runs-dir DIR SKILL`.",
	"skipped-no-key": "not pushed: no cloud key is configured (push: %s).",
	"not-attempted":  "not pushed: the push input is %s and no run qualified.",
}

// CIPushStatuses lists the values CIReport.Push may take, sorted.
func CIPushStatuses() []string { return slices.Sorted(maps.Keys(ciPushStatuses)) }

// LoadCIReport reads each skill file and its newest record in runsDir
// (<runsDir>/<name>.jsonl, the records of that file). Only an I/O error
// reading a history that exists is returned as an error; a skill that is
// missing or does not parse is reported in its CISkill.
func LoadCIReport(runsDir string, files []string) (*CIReport, error) {
	r := &CIReport{}
	for _, f := range files {
		s := CISkill{File: f}
		src, err := os.ReadFile(f)
		if err != nil {
			s.ReadErr = err
			r.Skills = append(r.Skills, s)
			continue
		}
		skill, diags := grammar.Parse(f, src)
		s.Skill = skill
		if diags.HasErrors() {
			for _, d := range diags {
				if d.Severity == ast.SeverityError {
					s.Diagnostics = append(s.Diagnostics, d)
				}
			}
		}
		if skill != nil && skill.Name() != "" {
			data, err := os.ReadFile(runlog.Path(runsDir, skill.Name()))
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return nil, err
			default:
				h, err := runlog.Read(bytes.NewReader(data))
				if err != nil {
					return nil, fmt.Errorf("%s: %v", runlog.Path(runsDir, skill.Name()), err)
				}
				h, _ = h.ForFile(filepath.ToSlash(f))
				if n := len(h.Entries); n > 0 {
					rec := h.Entries[n-1].Record
					s.Record = &rec
					if c := len(h.Corrupt); c > 0 && h.Corrupt[c-1].Line > h.Entries[n-1].Line {
						s.Record, s.Unreadable = nil, h.Corrupt[c-1]
					}
				} else if c := len(h.Corrupt); c > 0 {
					s.Unreadable = h.Corrupt[c-1]
				}
			}
		}
		r.Skills = append(r.Skills, s)
	}
	return r, nil
}

// Verdict is the suite's one word: "" when no skill left a record;
// interrupted when a run was; failed when a run failed or a skill could
// not run; unchecked when no run failed but one checked nothing; passed
// otherwise.
func (r *CIReport) Verdict() runlog.Verdict {
	var seen, failed, unchecked, interrupted bool
	for _, s := range r.Skills {
		if s.Record == nil {
			failed = true
			continue
		}
		seen = true
		switch s.Record.RunVerdict() {
		case runlog.VerdictInterrupted:
			interrupted = true
		case runlog.VerdictFailed, runlog.VerdictConfig:
			failed = true
		case runlog.VerdictUnchecked:
			unchecked = true
		}
	}
	switch {
	case !seen:
		return ""
	case interrupted:
		return runlog.VerdictInterrupted
	case failed:
		return runlog.VerdictFailed
	case unchecked:
		return runlog.VerdictUnchecked
	}
	return runlog.VerdictPassed
}

// Healed counts the steps the runs healed.
func (r *CIReport) Healed() int {
	n := 0
	for _, s := range r.Skills {
		if s.Record != nil {
			for _, st := range s.Record.Steps {
				if st.Level > 0 {
					n++
				}
			}
		}
	}
	return n
}

// Files lists the skill files with a record; with passedOnly, only those
// whose run passed. These are the files a push sends.
func (r *CIReport) Files(passedOnly bool) []string {
	var out []string
	for _, s := range r.Skills {
		if s.Record != nil && (!passedOnly || s.Record.RunVerdict() == runlog.VerdictPassed) {
			out = append(out, s.File)
		}
	}
	return out
}

// Outputs writes the job's outputs in the $GITHUB_OUTPUT format:
// verdict, passed ("true" exactly when the verdict is passed) and healed
// (the number of healed steps).
func (r *CIReport) Outputs(w io.Writer) error {
	v := r.Verdict()
	_, err := fmt.Fprintf(w, "verdict=%s\npassed=%t\nhealed=%d\n", v, v == runlog.VerdictPassed, r.Healed())
	return err
}

// line is where step n of s starts in its file (0 when unknown).
func (s CISkill) line(n int) int {
	if s.Skill == nil {
		return 0
	}
	for _, st := range s.Skill.Steps {
		if st.Number == n {
			return int(st.HeaderRange.Start.Line)
		}
	}
	return 0
}

// Annotations writes GitHub workflow commands: an error at each failed
// step's header line, a warning at each healed step saying the heal
// is not in the repository, and a notice at each unresolved open question. Parse errors are `reelier lint --format
// github`'s to annotate.
func (r *CIReport) Annotations(w io.Writer) error {
	var b strings.Builder
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		for _, st := range s.Record.Steps {
			loc := "file=" + escapeProperty(s.File)
			if l := s.line(st.N); l > 0 {
				loc += fmt.Sprintf(",line=%d", l)
			}
			switch {
			case st.Outcome == runlog.Failed:
				msg := "the step failed"
				if len(st.Failures) > 0 {
					msg = st.Failures[0]
				}
				fmt.Fprintf(&b, "::error %s,title=%s::%s\n", loc, escapeProperty(fmt.Sprintf("Reelier: step %d (%s) failed", st.N, st.Title)), escapeData(clipNote(msg)))
			case st.Level > 0:
				change := ""
				if st.Why != nil {
					change = st.Why.Change
				}
				fmt.Fprintf(&b, "::warning %s,title=%s::%s\n", loc, escapeProperty(fmt.Sprintf("Reelier: step %d healed at L%d, not committed", st.N, st.Level)),
					escapeData(clipNote(strings.TrimSpace(change+" — the heal patch must be committed, or the next run escalates again"))))
			}
		}
	}
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		texts := map[int]string{}
		if s.Skill != nil {
			for _, q := range grammar.OpenQuestions(s.Skill) {
				// The skill's own words, shown where the job's log shows
				// them: redacted as a failed expression is.
				texts[int(q.Range.Start.Line)] = redact.Text(defaultRedactor(), "", q.Text)
			}
		}
		for _, q := range s.Record.OpenQuestions {
			text := texts[q.Line]
			if text == "" {
				text = "an open question the compiler could not answer"
			}
			fmt.Fprintf(&b, "::notice file=%s,line=%d,title=%s::%s\n", escapeProperty(s.File), q.Line,
				escapeProperty("Reelier: open question — the replay cannot vouch for it"), escapeData(clipNote(text)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// openQuestions lists, for each skill that ran with unresolved open
// questions, how many and on which lines.
func (r *CIReport) openQuestions(m *markdown) {
	var b strings.Builder
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		if note := OpenQuestionsNote(s.Record.OpenQuestions); note != "" {
			fmt.Fprintf(&b, "- %s: %s\n", code(s.File), esc(note))
		}
	}
	if b.Len() == 0 {
		return
	}
	m.printf("**Open questions** (under `## Open questions` in each file: what the compiler could not know, which a pass does not vouch for; resolve one by deleting it or checking it off, `- [x]`):\n\n%s\n", b.String())
}

// escapeData and escapeProperty encode text for a workflow command, the
// way the runner decodes it: a newline cannot start a second command.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

var verdictMark = map[runlog.Verdict]string{
	runlog.VerdictPassed: "✅ passed", runlog.VerdictFailed: "❌ failed", runlog.VerdictUnchecked: "⚪ unchecked", runlog.VerdictInterrupted: "⏹️ interrupted",
	runlog.VerdictConfig: "🔧 config",
}

// Markdown writes the job summary: the suite's verdict; one row per
// skill; then, outside any collapsible part, the failed steps, the healed
// steps with the patch that must be committed, and the skills that could
// not run with their diagnostics, and what became of the receipts; then
// every step of every run in a
// collapsible part. No runner path is
// shown: skill files as the job named them, the patch by its base name.
func (r *CIReport) Markdown(w io.Writer) error {
	m := &markdown{}
	v := r.Verdict()
	n := len(r.Skills)
	var failed, broken int
	for _, s := range r.Skills {
		switch {
		case s.Record == nil:
			broken++
		case s.Record.RunVerdict() == runlog.VerdictFailed, s.Record.RunVerdict() == runlog.VerdictConfig:
			failed++
		}
	}
	switch v {
	case runlog.VerdictPassed:
		m.printf("## ✅ Reelier: %d of %d skill(s) passed\n\n", n, n)
	case runlog.VerdictUnchecked:
		m.printf("## ⚠️ Reelier: nothing failed, but a run checked nothing (unchecked is not passed)\n\n")
	case runlog.VerdictInterrupted:
		m.printf("## ⏹️ Reelier: the replay was interrupted\n\n")
	case "":
		m.printf("## ⚠️ Reelier: no run record was written\n\n")
	default:
		var parts []string
		if failed > 0 {
			parts = append(parts, fmt.Sprintf("%d failed", failed))
		}
		if broken > 0 {
			parts = append(parts, fmt.Sprintf("%d could not run", broken))
		}
		m.printf("## ❌ Reelier: of %d skill(s), %s\n\n", n, strings.Join(parts, ", "))
	}
	if n > 0 {
		m.printf("| skill | verdict | steps | passed | unchecked | failed | healed | duration |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, s := range r.Skills {
			if s.Record == nil {
				m.printf("| %s | ⚠️ did not run | — | — | — | — | — | — |\n", code(s.File))
				continue
			}
			t := runlog.CountSteps(s.Record.Steps)
			healed := 0
			for _, st := range s.Record.Steps {
				if st.Level > 0 {
					healed++
				}
			}
			m.printf("| %s | %s | %d | %d | %d | %d | %d | %s |\n", code(s.File), verdictMark[s.Record.RunVerdict()], t.Steps, t.Passed, t.Unchecked, t.Failed, healed, duration(t.Ms))
		}
		m.printf("\n")
	}
	r.failedSteps(m)
	r.healedSteps(m)
	r.notRun(m)
	r.openQuestions(m)
	if r.Push != "" {
		text := ciPushStatuses[r.Push]
		if strings.Contains(text, "%s") {
			text = fmt.Sprintf(text, code(r.PushPolicy))
		}
		m.printf("**Receipts:** %s\n\n", text)
	}
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		m.stepTable(fmt.Sprintf("%s — every step (%d)", code(s.File), len(s.Record.Steps)), s.Record.Steps)
	}
	_, err := io.WriteString(w, m.b.String())
	return err
}

// at renders "file, step N (line L)".
func (s CISkill) at(n int) string {
	if l := s.line(n); l > 0 {
		return fmt.Sprintf("%s step %d (line %d)", code(s.File), n, l)
	}
	return fmt.Sprintf("%s step %d", code(s.File), n)
}

func (r *CIReport) failedSteps(m *markdown) {
	var b strings.Builder
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		for _, st := range s.Record.Steps {
			if st.Outcome != runlog.Failed {
				continue
			}
			why := "the step failed"
			if len(st.Failures) > 0 {
				why = st.Failures[0]
			}
			fmt.Fprintf(&b, "- ❌ %s — %s: %s\n", s.at(st.N), esc(st.Title), esc(clipNote(why)))
		}
	}
	if b.Len() > 0 {
		m.printf("### Failed steps\n\n%s\n", b.String())
	}
}

func (r *CIReport) healedSteps(m *markdown) {
	var b strings.Builder
	count := 0
	for _, s := range r.Skills {
		if s.Record == nil {
			continue
		}
		for _, st := range s.Record.Steps {
			if st.Level == 0 {
				continue
			}
			count++
			change := ""
			if st.Why != nil {
				change = ": " + esc(clipNote(st.Why.Change))
			}
			fmt.Fprintf(&b, "- ↻ %s — %s, healed at L%d%s\n", s.at(st.N), esc(st.Title), st.Level, change)
		}
	}
	if count == 0 {
		return
	}
	m.printf("### Healed steps — not in the repository yet\n\n%s\n", b.String())
	if r.Patch != "" {
		m.printf("> **The heal patch must be committed.** %d step(s) healed for this run only: the skill files in the repository are unchanged, so the next run escalates (and pays for the LLM) again. Download %s (the action's `patch` output, uploaded as an artifact), apply it with `git apply -p0` (or `patch -p0`) and commit it.\n\n",
			count, code(path.Base(filepath.ToSlash(r.Patch))))
	} else {
		m.printf("> **These heals are not saved anywhere.** %d step(s) healed for this run only and no patch was written: the next run escalates (and pays for the LLM) again. Run `reelier run --max-level 1` on these skills locally and commit the result.\n\n", count)
	}
}

func (r *CIReport) notRun(m *markdown) {
	var b strings.Builder
	for _, s := range r.Skills {
		if s.Record != nil {
			continue
		}
		switch {
		case s.ReadErr != nil:
			fmt.Fprintf(&b, "- %s could not be read: %s\n", code(s.File), esc(readErrText(s.ReadErr)))
		case len(s.Diagnostics) > 0:
			fmt.Fprintf(&b, "- %s does not parse:\n\n<pre>\n", code(s.File))
			for _, d := range s.Diagnostics {
				b.WriteString(preEsc(d.String()))
				b.WriteByte('\n')
			}
			b.WriteString("</pre>\n\n")
		case s.Unreadable != nil:
			fmt.Fprintf(&b, "- %s: the newest run record is unreadable (%s), so there is no verdict.\n", code(s.File), esc(s.Unreadable.Error()))
		default:
			fmt.Fprintf(&b, "- %s: no run record was written — missing inputs, a refused write or a server that did not start stop a skill before it runs; the replay step's log says which.\n", code(s.File))
		}
	}
	if b.Len() > 0 {
		m.printf("### Skills that did not run\n\n%s\n", b.String())
	}
}

// readErrText names what went wrong without the path the error repeats.
func readErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// preEsc makes text safe inside <pre>: no tags, no control characters.
func preEsc(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(htmlEscaper.Replace(termtext.Line(strings.ReplaceAll(line, "\t", "    "))))
	}
	return b.String()
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
