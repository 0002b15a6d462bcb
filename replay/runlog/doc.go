// Package runlog defines the run record that every replay leaves behind and
// the run-history files that hold them.
//
// A run record is one JSON object per replay, appended as a single line to
// <runs-dir>/<skill-name>.jsonl. The field names and their meaning follow
// the format specification's run-record section: step outcomes are honest
// (a step with no assertions is "unchecked", never "passed") and the totals
// are counted from the step outcomes. Reading tolerates history written by
// older versions: records without the honest totals have them derived from
// their steps, and a line that is not a record is reported and skipped,
// never fatal. Summarize turns a history into the figures `reelier bench`
// prints.
package runlog
