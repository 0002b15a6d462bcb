// Package receipt renders replay results for people and for CI.
//
// Text writes the human receipt: one line per step with its outcome and
// duration, the failures of a failed step with what was expected beside
// what was observed and a short excerpt of the response, and totals that
// keep unchecked steps apart from passed ones, with the measured replay
// time and LLM token count. Progress writes the same step lines live, as
// each step finishes. JUnit writes a JUnit XML report with one testcase per
// step; an unchecked step is reported as skipped with its reason, never as
// a pass.
package receipt
