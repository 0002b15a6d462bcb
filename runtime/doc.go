// Package runtime replays a skill at Level 0: no LLM, the same tool calls
// every run, every result checked.
//
// Run walks the typed syntax tree of a parsed skill step by step. For each
// step it fills the action's template holes from the bindings made so far
// and the run's one clock reading, applies effect gating (destructive steps
// need Yes, idempotent writes need AllowWrites or Yes), calls the tool from
// the Registry, and evaluates every assert and bind against the resulting
// Observation. A step passes when it had asserts and all of them and all
// binds held, is unchecked when it ran with no asserts, and fails otherwise;
// after the first failure every later step is skipped. The outcome of each
// run is a runlog.Record, plus the details (filled actions, observations,
// structured failures) a receipt needs.
//
// DryRun fills every action without calling anything.
//
// Builtin HTTP tools live in runtime/httptool, run records in
// runtime/runlog, and the human and JUnit receipts in runtime/receipt.
package runtime
