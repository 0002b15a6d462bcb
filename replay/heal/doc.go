// Package heal is the escalation ladder: when a step diverges, a language
// model proposes a narrow patch, the harness validates and checks it, and a
// patch that holds is written back to the skill file.
//
//   - Level 1 re-reads the observation the step already produced. The patch
//     may replace the step's asserts and binds, never its arguments, and
//     nothing is executed again.
//   - Level 2, tried only when Level 1 did not hold and the run allows it,
//     may also replace the action's arguments; the step's tool is then
//     called exactly once more and the patch checked against the new
//     observation. A destructive step never reaches Level 2: it stops with
//     the Level 3 message (fix the skill by hand).
//
// The model only ever answers a JSON object; it never writes a file. Every
// proposed line is parsed with the skill grammar, a line break anywhere is
// refused, a patch may not leave a checked step without asserts, drop a
// name the step binds or (without AllowWeaker) drop a value check (the
// weakening rule, weaken.go), patched arguments may use only names already
// bound, and the patch must hold against its observation before it is
// accepted. A heal that holds is written back, or with Propose only
// offered as a diff; either way the record's why carries the step's lines
// before and after.
// The prompt carries the step's text, its failures and a bounded summary of
// the observation: the status, the first ~2000 characters of the body and
// up to 40 sampled json.<path> leaves.
package heal
