package cli

import (
	"os"

	"github.com/reelier/reelier/trace"
	"github.com/reelier/reelier/trace/render"
	"github.com/spf13/cobra"
)

const traceLong = `Print a trace file (written by ` + "`reelier mcp`" + `) for reading: its meta
record as a header, every note as a heading, and every call with its
result — the tool, its arguments, ok or error, the duration and an
excerpt of the body (the text blocks of an MCP result). A result is
shown under its call even when other records came between them.

With --json, one JSON object per line instead: {"kind":"meta",…},
{"kind":"note",…} and {"kind":"call",…,"result":{…}|null}, each with the
line it came from.

A line that is not a valid record is reported on stderr as FILE:LINE:
with the field at fault, and the rest of the file is still printed.
Colours on a terminal unless NO_COLOR is set. Text from the trace is
printed with control characters and bidi overrides escaped (\x1b, \r,
\u202e), so a trace cannot repaint the terminal; --json leaves the text
as recorded, in JSON's own escaping.

Exit status: 0 when every line was a valid record; 2 when a line was
not (everything readable is still printed) or the file cannot be read.

Examples:
  reelier trace .reelier/traces/weekly-bookings-1.jsonl
  reelier trace --json .reelier/traces/weekly-bookings-1.jsonl | jq 'select(.kind=="call") | .tool'`

type traceOptions struct {
	path string
	json bool
}

func newTraceCmd() *cobra.Command {
	var opts traceOptions
	cmd := &cobra.Command{
		Use:   "trace FILE [--json]",
		Short: "Pretty-print a trace file",
		Long:  traceLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return traceRun(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object per meta, note and call (with its result)")
	return cmd
}

func traceRun(cmd *cobra.Command, opts traceOptions) error {
	f, err := os.Open(opts.path)
	if err != nil {
		return traceError(cmd, opts.path, err)
	}
	defer f.Close()
	tr, err := render.Read(f)
	switch {
	case err != nil:
		return traceError(cmd, opts.path, err)
	case tr.Empty():
		return traceError(cmd, opts.path, trace.ErrEmpty)
	}
	out := cmd.OutOrStdout()
	if opts.json {
		err = tr.JSON(out)
	} else {
		st := terminalStyle(out)
		err = tr.Text(out, st != nil && st.Color)
	}
	if err != nil {
		return err
	}
	tr.WriteProblems(cmd.ErrOrStderr(), opts.path)
	if len(tr.Problems) > 0 {
		return silentExit(exitUsage)
	}
	return nil
}
