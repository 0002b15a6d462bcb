// Package receipt renders replay results for people and for CI.
//
// Text writes the human receipt: one line per step with its outcome and
// duration; for a failed step, each failing assert or bind at its
// path:line in the skill file with what was expected beside what was
// observed, the response body with its line breaks (bounded unless
// Style.Verbose), and what to do next; totals that keep unchecked steps
// apart from passed ones, the measured replay time and LLM token count;
// and the run's verdict (PASSED, FAILED, UNCHECKED, INTERRUPTED).
// Progress writes the same step lines live, as each step finishes; Suite
// writes the line that closes a suite. JUnit writes a JUnit XML report
// with one testcase per step: a failed check is a <failure>, any other
// failure an <error>, and an unchecked or skipped step is <skipped> with
// its reason, never a pass. Summary renders a run history's newest record
// as Markdown for a CI job summary (`reelier summary`).
//
// Everything that came from a skill, a server or a record is escaped for
// the terminal (internal/termtext) before it is written.
package receipt
