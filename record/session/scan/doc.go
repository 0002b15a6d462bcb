// Package scan walks agents' whole session histories — each host's own
// folders (session.Hosts: Claude Code's ~/.claude/projects, and every
// host the table holds), or one folder of any host's sessions — and finds
// the sessions worth compiling.
//
// Every *.jsonl and *.json file under a folder is sniffed (its name and
// first 8 KB) and read with the reader of the host that claims it, the
// same reader `reelier from-session` uses, so a session the scan lists is
// exactly one from-session would compile, and one it leaves out is one
// from-session would refuse; a file no host claims is passed over. Files
// are streamed on several goroutines; memory stays flat however large the
// history, because only a small Entry per replayable session is kept.
// Links are followed, but never in a loop and never to a file twice;
// unreadable and binary files are counted, never fatal. Each folder's
// findings are kept per host (Folder), and the replayable sessions are
// grouped by workflow — the same tools in the same order — so work done
// N times shows once (Group).
//
// The replayable-rate statistics ask the compiler itself how it would
// classify each replayed tool, so "read-only" means what a compiled
// skill's effect lines would say.
package scan
