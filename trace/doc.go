// Package trace reads and describes Reelier trace files: JSON Lines whose
// records are a closed union over "t" — meta, note, call and result.
//
// A trace is written by the recording proxy and read by the compiler and
// by `reelier trace`. The reader streams (a line at a time, any line
// length), accepts LF or CRLF, skips blank lines, rejects an unknown "t",
// tolerates unknown extra fields, and names the line and the field of
// every problem.
package trace
