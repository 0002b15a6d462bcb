// Package replay replays a skill at Level 0: no LLM, the same tool calls
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
// Options.Healer hooks the escalation ladder (replay/heal) into the run: a
// step that diverges after its tool ran is offered to it, and a heal counts
// only if its patch holds when the runner evaluates it itself. Without a
// Healer (Level 0) nothing escalates.
//
// Builtin HTTP tools live in replay/httptool, run records in
// replay/runlog, the human and JUnit receipts in replay/receipt, the
// ladder in replay/heal, its LLM adapters in replay/llm and the write-back
// of heals in replay/writeback.
package replay
