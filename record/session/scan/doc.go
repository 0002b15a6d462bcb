// Package scan walks an agent's whole session history — by default
// ~/.claude/projects — and finds the sessions worth compiling.
//
// Every *.jsonl file under the directory is read with session.Read, the
// same reader `reelier from-session` uses, so a session the scan lists is
// exactly one from-session would compile, and one it leaves out is one
// from-session would refuse. Files are streamed on several goroutines;
// memory stays flat however large the history, because only a small Entry
// per replayable session is kept. Links are followed, but never in a loop
// and never to a file twice; unreadable and binary files are counted,
// never fatal.
//
// The replayable-rate statistics ask the compiler itself how it would
// classify each replayed tool, so "read-only" means what a compiled
// skill's effect lines would say.
package scan
