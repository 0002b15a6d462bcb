package receipt

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// Style chooses how a receipt looks.
type Style struct {
	// Color adds ANSI colours to outcome labels.
	Color bool
	// Verbose shows every step's request and response, and a failed
	// step's whole response body instead of its first lines (run
	// --verbose).
	Verbose bool
	// Redactor blanks secrets in the responses and the failed expressions
	// shown (requests and failure texts come from the run, already
	// redacted). Nil means the one the environment configures
	// (trace.RedactorFromEnv).
	Redactor *redact.Redactor
	// Context, when set, bounds the scrubbing of a response shown: once it
	// ends (Ctrl-C), what is left is shown with the redactor's own pass
	// only (scrub.TextContext). Nil means no bound but scrub's work budget.
	Context context.Context
}

// context is the style's context, or the background.
func (s Style) context() context.Context {
	if s.Context != nil {
		return s.Context
	}
	return context.Background()
}

// redactor is the style's redactor, or the environment's.
func (s Style) redactor() *redact.Redactor {
	if s.Redactor != nil {
		return s.Redactor
	}
	return defaultRedactor()
}

var defaultRedactor = sync.OnceValue(redact.RedactorFromEnv)

// ANSI colour codes for the outcome labels.
const (
	ansiReset  = "\x1b[0m"
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
)

// Bounds on the response body shown under a failed step, unless Verbose.
const (
	// inlineBody is the longest body shown on the response line itself.
	inlineBody = 160
	// maxBodyLines and maxBodyChars bound a body shown line by line.
	maxBodyLines = 20
	maxBodyChars = 2000
)

// Indents of the lines under a step line.
const (
	detail = "                 "     // failures, response, heal, next
	nested = "                     " // expected, observed
	quoted = "                   │ " // the lines of a body
	elided = "                   "   // what a bounded body left out
)

// Text writes the whole receipt of one run; name is the skill file as
// given, and failures are located in it as name:line.
func Text(w io.Writer, name string, res *replay.Result, s Style) {
	Header(w, name, res.Record.Skill)
	for _, sr := range res.Steps {
		Step(w, name, sr, s)
	}
	Footer(w, res, s)
}

// Header writes the receipt's first line; name is the skill file as given.
func Header(w io.Writer, name, skill string) {
	fmt.Fprintf(w, "skill %s (%s)\n", termtext.Line(skill), termtext.Line(name))
}

// Step writes one step's line and, for a failed step, its failures, each
// assert or bind located as file:line, the response, and what to do next.
// file is the skill file as given; "" when there is none.
func Step(w io.Writer, file string, sr *replay.StepResult, s Style) {
	rec := sr.Record
	label, color := outcomeLabel(rec.Outcome)
	fmt.Fprintf(w, "  %s %3d  %s", s.paint(color, fmt.Sprintf("%-9s", label)), rec.N, termtext.Line(rec.Title))
	switch rec.Outcome {
	case runlog.Skipped:
		fmt.Fprintf(w, "  (not run: %s)\n", skipReason(rec.Skip))
		return
	case runlog.Unchecked:
		fmt.Fprintf(w, "  %dms  (no asserts: it ran, nothing was verified)\n", rec.Ms)
		writeHeal(w, sr, s)
		return
	case runlog.Interrupted:
		fmt.Fprintf(w, "  %dms  (%s)\n", rec.Ms, runlog.InterruptedNote)
		if rec.Action != nil {
			fmt.Fprintf(w, "%ssent:     %s %s\n", detail, termtext.Line(rec.Action.Tool), termtext.Line(string(rec.Action.Args)))
		}
		return
	}
	fmt.Fprintf(w, "  %dms\n", rec.Ms)
	if s.Verbose && rec.Action != nil {
		fmt.Fprintf(w, "%srequest:  %s %s\n", detail, termtext.Line(rec.Action.Tool), termtext.Line(string(rec.Action.Args)))
	}
	for _, f := range sr.Failures {
		writeFailure(w, file, sr.Step, f, s.redactor())
	}
	if sr.Observation != nil && (rec.Outcome == runlog.Failed || s.Verbose) {
		writeResponse(s.context(), w, sr.Observation, s.Verbose, s.redactor())
	}
	writeHeal(w, sr, s)
	if rec.Outcome == runlog.Failed {
		writeNext(w, file, sr)
	}
}

// skipReason says why a step did not run, from the record's Skip.
func skipReason(skip string) string {
	switch skip {
	case "", replay.SkipAfterFailure:
		return "an earlier step failed"
	case replay.SkipInterrupted:
		return "the run was interrupted"
	case replay.SkipWriteGate:
		return "the write gate held it back (--allow-writes or --yes lets it run)"
	case replay.SkipToolDrift:
		return "the servers' tools drifted (see tool drift)"
	}
	return termtext.Line(skip)
}

// writeFailure writes one failure: an assert or bind that failed is named
// at its line of the skill file, with expected and observed when known.
// The run redacted the failure's texts; the expression, which the skill
// spells, is redacted here, where it is shown.
func writeFailure(w io.Writer, file string, st *ast.Step, f replay.Failure, r *redact.Redactor) {
	at := ""
	if line := exprLine(st, f.Expr); line > 0 {
		at = location(file, line) + ": "
	}
	if f.Expr == "" || f.Expected == "" {
		fmt.Fprintf(w, "%s%s✗ %s\n", detail, at, termtext.Line(f.Message))
		return
	}
	fmt.Fprintf(w, "%s%s✗ %s\n", detail, at, termtext.Line(redact.Text(r, "", f.Expr)))
	fmt.Fprintf(w, "%sexpected: %s\n", nested, termtext.Line(f.Expected))
	fmt.Fprintf(w, "%sobserved: %s\n", nested, termtext.Line(f.Observed))
}

// exprLine is the line of the step's assert or bind whose canonical text
// is expr; 0 when none is.
func exprLine(st *ast.Step, expr string) int {
	if st == nil || expr == "" {
		return 0
	}
	for _, a := range st.Asserts {
		if a.Expr != nil && format.Assert(a.Expr) == expr {
			return int(a.Range.Start.Line)
		}
	}
	for _, b := range st.Binds {
		if b.Expr != nil && format.Bind(b.Expr) == expr {
			return int(b.Range.Start.Line)
		}
	}
	return 0
}

// location renders file:line, or "line N" when there is no file.
func location(file string, line int) string {
	if file == "" {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s:%d", termtext.Line(file), line)
}

// writeResponse shows the response a failed step got. A short one-line
// body stays on the response line; a longer one is quoted line by line,
// its line breaks kept, up to maxBodyLines lines and maxBodyChars
// characters unless verbose.
func writeResponse(ctx context.Context, w io.Writer, obs *tool.Observation, verbose bool, r *redact.Redactor) {
	scrubbed, _ := redact.TextContext(ctx, r, "", obs.Body)
	body := strings.TrimSuffix(strings.TrimSuffix(scrubbed, "\n"), "\r")
	if body == "" {
		fmt.Fprintf(w, "%sresponse: status %d, body (empty)\n", detail, obs.Status)
		return
	}
	if !strings.Contains(body, "\n") && utf8.RuneCountInString(body) <= inlineBody {
		fmt.Fprintf(w, "%sresponse: status %d, body %s\n", detail, obs.Status, termtext.Line(body))
		return
	}
	lines := strings.Split(body, "\n")
	fmt.Fprintf(w, "%sresponse: status %d, body of %s, %s:\n", detail, obs.Status, words.Count(len(lines), "line"), words.Count(len(obs.Body), "byte"))
	shown, moreLines, moreChars := bodyLines(lines, verbose)
	for _, l := range shown {
		fmt.Fprintf(w, "%s%s\n", quoted, l)
	}
	switch {
	case moreLines > 0:
		fmt.Fprintf(w, "%s…%d more %s (--verbose shows all)\n", elided, moreLines, words.Noun(moreLines, "line"))
	case moreChars > 0:
		fmt.Fprintf(w, "%s…%d more %s (--verbose shows all)\n", elided, moreChars, words.Noun(moreChars, "character"))
	}
}

// bodyLines bounds a body's lines for a receipt, escaping each: at most
// maxBodyLines lines and maxBodyChars characters, a line cut short ending
// in "…". It says how many lines, or else characters, were left out.
func bodyLines(lines []string, verbose bool) (shown []string, moreLines, moreChars int) {
	budget := maxBodyChars
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if verbose {
			shown = append(shown, termtext.Line(l))
			continue
		}
		if i == maxBodyLines {
			return shown, len(lines) - i, 0
		}
		n := utf8.RuneCountInString(l)
		if n > budget {
			shown = append(shown, termtext.Line(firstRunes(l, budget))+"…")
			if rest := len(lines) - i - 1; rest > 0 {
				return shown, rest, 0
			}
			return shown, 0, n - budget
		}
		budget -= n
		shown = append(shown, termtext.Line(l))
	}
	return shown, 0, 0
}

// firstRunes is the first n characters of s.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// writeNext points at what to do about a failed step: let an LLM propose
// a heal, give a flag or a value, or the line of the skill to edit.
func writeNext(w io.Writer, file string, sr *replay.StepResult) {
	st := sr.Step
	if st == nil {
		return
	}
	action := int(st.Range.Start.Line)
	if st.Action != nil {
		action = int(st.Action.Range.Start.Line)
	}
	var next string
	switch kindOf(sr.Record) {
	case runlog.KindCheck:
		line := firstFailingLine(st, sr.Failures)
		switch {
		case sr.Heal == nil:
			next = fmt.Sprintf("rerun with --max-level 1 to let an LLM propose a heal, or edit %s", location(file, line))
		default:
			next = fmt.Sprintf("edit %s", location(file, line))
		}
	case runlog.KindGate:
		at := action
		if st.Effect != nil {
			at = int(st.Effect.Range.Start.Line)
		}
		next = fmt.Sprintf("rerun with %s if the step should run, or edit its effect at %s", gateFlag(sr), location(file, at))
	case runlog.KindApproval:
		skillArg := "FILE"
		if file != "" {
			skillArg = termtext.Line(file)
		}
		next = fmt.Sprintf("review the step at %s, then approve it with reelier approve %s --step %d", location(file, action), skillArg, st.Number)
	case runlog.KindPolicy:
		next = fmt.Sprintf("the policy (%s) holds this call back: change its rule, or the action at %s", policyOf(sr.Record), location(file, action))
	case runlog.KindInput:
		next = fmt.Sprintf("give the missing value (--var name=value), or edit the action at %s", location(file, action))
	default:
		next = fmt.Sprintf("check the tool and its server, or edit the action at %s", location(file, action))
	}
	fmt.Fprintf(w, "%snext: %s\n", detail, next)
}

// firstFailingLine is the line of the first assert or bind that failed;
// without one (a body that is not JSON), the first assert's, else the
// step's header.
func firstFailingLine(st *ast.Step, failures []replay.Failure) int {
	for _, f := range failures {
		if line := exprLine(st, f.Expr); line > 0 {
			return line
		}
	}
	if len(st.Asserts) > 0 {
		return int(st.Asserts[0].Range.Start.Line)
	}
	return int(st.Range.Start.Line)
}

// gateFlag is the flag that lets a refused step run.
func gateFlag(sr *replay.StepResult) string {
	effect := sr.Step.EffectValue()
	if effect == "" && len(sr.Failures) > 0 && strings.Contains(sr.Failures[0].Message, "--allow-writes") {
		effect = ast.EffectIdempotentWrite
	}
	if effect == ast.EffectIdempotentWrite {
		return "--allow-writes"
	}
	return "--yes"
}

// kindOf says why a failed step failed; a record written before kinds
// existed failed a check.
func kindOf(rec *runlog.StepRecord) runlog.Kind {
	if rec.Kind == "" {
		return runlog.KindCheck
	}
	return rec.Kind
}

// Footer writes the totals, the measured replay time and token count, and
// the verdict.
func Footer(w io.Writer, res *replay.Result, s Style) {
	ToolDrift(w, res.Record.ToolDrift)
	t := res.Record.Totals
	fmt.Fprintf(w, "  steps:        %d total, %d passed, %d unchecked, %d failed, %d skipped\n",
		t.Steps, t.Passed, t.Unchecked, t.Failed, t.Skipped)
	if t.Interrupted > 0 {
		fmt.Fprintf(w, "                %d interrupted in flight (the request was sent; the server may have acted on it)\n", t.Interrupted)
	}
	if t.Unchecked > 0 {
		fmt.Fprintf(w, "                (unchecked steps ran without asserts; they are not counted as passed)\n")
	}
	fmt.Fprintf(w, "  replay time:  %s [measured]\n", formatDuration(res.Elapsed.Milliseconds(), res.Elapsed.Microseconds()))
	fmt.Fprintf(w, "  LLM tokens:   %d [measured]%s\n", t.LLMInputTokens+t.LLMOutputTokens, costNote(runlog.LLMCost(res.Record.Steps)))
	writePolicy(w, res.Record.Steps)
	writeHealed(w, res)
	if res.Record.Mock() {
		fmt.Fprintf(w, "  servers:      MOCK (reelier mock): checked against a recording served back, not a live server\n")
	}
	if inj := res.Record.Injected; inj != nil {
		fmt.Fprintf(w, "  injected:     step %d fails on purpose (--fail %d=%s): not a real failure; reelier push does not send this run\n", inj.Step, inj.Step, inj.Kind)
	}
	v := res.Record.RunVerdict()
	open := ""
	// A run that did not fail says what it cannot vouch for; a failed or
	// interrupted run has its failure to show.
	if note := OpenQuestionsNote(res.Record.OpenQuestions); note != "" && (v == runlog.VerdictPassed || v == runlog.VerdictUnchecked) {
		open = " — " + note
	}
	fmt.Fprintf(w, "  result:       %s%s%s\n", s.paint(verdictColor(v), VerdictWord(v)), open, verdictNote(v))
	switch {
	case open == "":
	case len(res.Record.OpenQuestions) == 1:
		fmt.Fprintf(w, "                (read it under ## Open questions: the replay cannot vouch for what it asks; resolve it by deleting it or checking it off, - [x])\n")
	default:
		fmt.Fprintf(w, "                (read them under ## Open questions: the replay cannot vouch for what they ask; resolve one by deleting it or checking it off, - [x])\n")
	}
}

// ToolDrift writes the drift check's report: each tool whose live
// definition differs from the skill's signature of it, by server and
// tool, with what changed, and what to do next; nothing when there was
// no drift.
func ToolDrift(w io.Writer, d *runlog.ToolDrift) {
	if d == nil || len(d.Tools) == 0 {
		return
	}
	if d.Ignored {
		fmt.Fprintf(w, "  tool drift:   IGNORED (--ignore-tool-drift): the steps ran against tools that differ from the skill's reelier-tools\n")
	} else {
		fmt.Fprintf(w, "  tool drift:   the servers' tools differ from the skill's reelier-tools, so no step ran\n")
	}
	const under = "                " // the column of the footer's values
	for _, line := range replay.DriftLines(d) {
		fmt.Fprintf(w, "%s%s\n", under, termtext.Line(line))
	}
	if !d.Ignored {
		fmt.Fprintf(w, "%snext: record and compile the skill again against these servers, or rerun with --ignore-tool-drift to replay anyway\n", under)
	}
}

// VerdictWord is how a verdict is written in a receipt, a suite line and
// a summary heading: PASSED, FAILED, CONFIG, UNCHECKED, INTERRUPTED.
func VerdictWord(v runlog.Verdict) string { return strings.ToUpper(string(v)) }

func verdictColor(v runlog.Verdict) string {
	switch v {
	case runlog.VerdictPassed:
		return ansiGreen
	case runlog.VerdictFailed, runlog.VerdictConfig:
		return ansiRed
	}
	return ansiYellow
}

// verdictNote explains the two verdicts that are neither pass nor fail.
func verdictNote(v runlog.Verdict) string {
	switch v {
	case runlog.VerdictUnchecked:
		return "  (no step has asserts, so nothing was verified)"
	case runlog.VerdictInterrupted:
		return "  (stopped before the end; the steps it did not reach are skipped)"
	case runlog.VerdictConfig:
		return "  (how the run was set up stopped it — a refused write, an input that could not be sent, an approval or a policy that held a step back — not drift)"
	}
	return ""
}

// Suite writes the suite line of a run of several skills: how many ran and
// how many got each verdict (unchecked, interrupted, and skills that could
// not run at all only when there are some).
func Suite(w io.Writer, runs []Run) {
	count := map[runlog.Verdict]int{}
	broken, open := 0, 0
	for _, r := range runs {
		if r.Result == nil {
			broken++
			continue
		}
		count[r.Result.Record.RunVerdict()]++
		if len(r.Result.Record.OpenQuestions) > 0 {
			open++
		}
	}
	fmt.Fprintf(w, "suite: %d skills, %d passed, %d failed", len(runs), count[runlog.VerdictPassed], count[runlog.VerdictFailed])
	for _, v := range []runlog.Verdict{runlog.VerdictConfig, runlog.VerdictUnchecked, runlog.VerdictInterrupted} {
		if count[v] > 0 {
			fmt.Fprintf(w, ", %d %s", count[v], v)
		}
	}
	if open > 0 {
		fmt.Fprintf(w, ", %d with open questions", open)
	}
	if broken > 0 {
		fmt.Fprintf(w, ", %d could not run", broken)
	}
	fmt.Fprintln(w)
}

// formatDuration shows whole milliseconds, or a fraction below 10ms.
func formatDuration(ms, us int64) string {
	if ms >= 10 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fms", float64(us)/1000)
}

func outcomeLabel(o runlog.Outcome) (string, string) {
	switch o {
	case runlog.Passed:
		return "PASS", ansiGreen
	case runlog.Unchecked:
		return "UNCHECKED", ansiYellow
	case runlog.Failed:
		return "FAIL", ansiRed
	case runlog.Interrupted:
		return "INTERRUPT", ansiYellow
	}
	return "SKIP", ansiDim
}

// paint wraps text in a colour when the style has colour.
func (s Style) paint(color, text string) string {
	if !s.Color {
		return text
	}
	return color + text + ansiReset
}

// policyOf names the policy that decided a step: its digest, shortened.
func policyOf(rec *runlog.StepRecord) string {
	if rec == nil || rec.Policy == nil {
		return "policy"
	}
	d := rec.Policy.Digest
	if len(d) > 19 {
		d = d[:19] + "…"
	}
	return d
}

// writePolicy writes, when a policy was in force, its digest and what it
// decided: how many calls it allowed and, by action, held back.
func writePolicy(w io.Writer, steps []runlog.StepRecord) {
	digest := ""
	counts := map[string]int{}
	for _, st := range steps {
		if st.Policy == nil {
			continue
		}
		digest = st.Policy.Digest
		counts[st.Policy.Action]++
	}
	if digest == "" {
		return
	}
	line := fmt.Sprintf("%d allowed", counts["allow"])
	for _, a := range []string{"deny", "dry-run", "ask"} {
		if counts[a] > 0 {
			line += fmt.Sprintf(", %d %s", counts[a], a)
		}
	}
	fmt.Fprintf(w, "  policy:       %s — %s\n", termtext.Line(digest), line)
}
