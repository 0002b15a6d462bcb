package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/trace"
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
Colours on a terminal unless NO_COLOR is set.

Exit status: 0 when every line was a valid record; 2 when a line was
not (everything readable is still printed) or the file cannot be read.

Examples:
  reelier trace .reelier/traces/weekly-bookings-1.jsonl
  reelier trace --json .reelier/traces/weekly-bookings-1.jsonl | jq 'select(.kind=="call") | .tool'`

// excerptLen is how many characters of arguments and bodies are shown.
const excerptLen = 160

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

// lined is a record and the line it came from.
type lined struct {
	rec  trace.Record
	line int
}

func traceRun(cmd *cobra.Command, opts traceOptions) error {
	f, err := os.Open(opts.path)
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer f.Close()
	records, problems, err := readTrace(f)
	if err != nil {
		return usageErrorf("%s: %v", opts.path, err)
	}
	if len(records) == 0 && len(problems) == 0 {
		return usageErrorf("%s: empty trace: no records", opts.path)
	}
	results := map[int]lined{}
	for _, r := range records {
		if res, ok := r.rec.(*trace.Result); ok {
			results[res.I] = r
		}
	}
	out := cmd.OutOrStdout()
	if opts.json {
		err = printTraceJSON(out, records, results)
	} else {
		st := terminalStyle(out)
		err = printTraceText(out, records, results, painter(st != nil && st.Color))
	}
	if err != nil {
		return err
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	for _, p := range problems {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s:%s\n", opts.path, strings.TrimPrefix(p.Error(), "line "))
	}
	if len(problems) > 0 {
		return silentExit(exitUsage)
	}
	return nil
}

// readTrace reads every valid record and collects a problem for every
// invalid line and every structural fault (meta not first, a result
// without its call), reading on past each.
func readTrace(r io.Reader) ([]lined, []*trace.LineError, error) {
	rd := trace.NewReader(r)
	var records []lined
	var problems []*trace.LineError
	calls := map[int]bool{}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *trace.LineError
		if errors.As(err, &le) {
			problems = append(problems, le)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		line := rd.Line()
		switch rec := rec.(type) {
		case *trace.Meta:
			if len(records) > 0 {
				problems = append(problems, &trace.LineError{Line: line, Field: "t", Msg: "a meta record after the first record"})
			}
		case *trace.Call:
			if calls[rec.I] {
				problems = append(problems, &trace.LineError{Line: line, Field: "i", Msg: fmt.Sprintf("duplicate call index %d", rec.I)})
			}
			calls[rec.I] = true
		case *trace.Result:
			if !calls[rec.I] {
				problems = append(problems, &trace.LineError{Line: line, Field: "i", Msg: fmt.Sprintf("result for call index %d, which has no earlier call", rec.I)})
			}
		}
		records = append(records, lined{rec, line})
	}
	if len(records) > 0 {
		if _, ok := records[0].rec.(*trace.Meta); !ok {
			problems = append(problems, &trace.LineError{Line: records[0].line, Field: "t", Msg: "the first record must be meta"})
		}
	}
	return records, problems, nil
}

// painter wraps text in ANSI colours when on is set.
type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func printTraceText(w io.Writer, records []lined, results map[int]lined, p painter) error {
	ew := &errWriter{w: w}
	for _, r := range records {
		switch rec := r.rec.(type) {
		case *trace.Meta:
			ew.printf("%s %s · started %s", p.paint("1", "trace"), p.paint("1", rec.Name), rec.StartedAt)
			if len(rec.Wrapped) > 0 {
				ew.printf(" · wrapped: %s", strings.Join(rec.Wrapped, ", "))
			}
			ew.printf("\n")
			for _, name := range slices.Sorted(maps.Keys(rec.ToolAnnotations)) {
				ew.printf("  %s: %s\n", p.paint("2", name), hints(rec.ToolAnnotations[name]))
			}
		case *trace.Note:
			ew.printf("\n%s\n", p.paint("1;36", "## "+rec.Text))
		case *trace.Call:
			ew.printf("%s %s %s\n", p.paint("2", fmt.Sprintf("[%d]", rec.I)), p.paint("1", rec.Tool), excerpt(string(rec.Args)))
			res, ok := results[rec.I]
			if !ok {
				ew.printf("    %s\n", p.paint("33", "no result"))
				continue
			}
			ew.printf("    %s\n", resultLine(res.rec.(*trace.Result), p))
		}
	}
	return ew.err
}

func resultLine(r *trace.Result, p painter) string {
	status := p.paint("32", "ok")
	if !r.OK {
		status = p.paint("31", "error")
	}
	return fmt.Sprintf("%s %s %s", status, p.paint("2", fmt.Sprintf("%d ms", r.MS)), bodyExcerpt(r))
}

// bodyExcerpt shows the text of an MCP result, the marker of a truncated
// body, or the raw JSON of anything else.
func bodyExcerpt(r *trace.Result) string {
	if t, ok := r.Truncated(); ok {
		return fmt.Sprintf("[truncated from %d chars] %s", t.OriginalLength, excerpt(t.Preview))
	}
	if res, err := runtime.ParseToolResult(r.Body); err == nil {
		text := res.Text()
		if strings.TrimSpace(text) == "" && res.Structured != nil {
			text = string(res.Structured)
		}
		return excerpt(text)
	}
	return excerpt(string(r.Body))
}

// excerpt puts s on one line and cuts it to excerptLen characters.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= excerptLen {
		return s
	}
	runes := []rune(s)
	return string(runes[:excerptLen]) + "…"
}

func hints(a trace.Annotations) string {
	var parts []string
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnly", a.ReadOnlyHint}, {"destructive", a.DestructiveHint}, {"idempotent", a.IdempotentHint}} {
		if h.v != nil {
			parts = append(parts, fmt.Sprintf("%s=%t", h.name, *h.v))
		}
	}
	return strings.Join(parts, " ")
}

// The --json shapes.
type (
	jsonMeta struct {
		Kind            string                       `json:"kind"`
		Line            int                          `json:"line"`
		Name            string                       `json:"name"`
		StartedAt       string                       `json:"startedAt"`
		Wrapped         []string                     `json:"wrapped"`
		ToolAnnotations map[string]trace.Annotations `json:"toolAnnotations,omitempty"`
	}
	jsonNote struct {
		Kind string `json:"kind"`
		Line int    `json:"line"`
		TS   string `json:"ts"`
		Text string `json:"text"`
	}
	jsonCall struct {
		Kind      string          `json:"kind"`
		Line      int             `json:"line"`
		I         int             `json:"i"`
		TS        string          `json:"ts"`
		Tool      string          `json:"tool"`
		Args      json.RawMessage `json:"args"`
		ToolUseID string          `json:"toolUseId,omitempty"`
		Result    *jsonResult     `json:"result"`
	}
	jsonResult struct {
		Line int             `json:"line"`
		OK   bool            `json:"ok"`
		MS   int64           `json:"ms"`
		Body json.RawMessage `json:"body"`
	}
)

func printTraceJSON(w io.Writer, records []lined, results map[int]lined) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range records {
		var v any
		switch rec := r.rec.(type) {
		case *trace.Meta:
			v = jsonMeta{Kind: "meta", Line: r.line, Name: rec.Name, StartedAt: rec.StartedAt, Wrapped: rec.Wrapped, ToolAnnotations: rec.ToolAnnotations}
		case *trace.Note:
			v = jsonNote{Kind: "note", Line: r.line, TS: rec.TS, Text: rec.Text}
		case *trace.Call:
			c := jsonCall{Kind: "call", Line: r.line, I: rec.I, TS: rec.TS, Tool: rec.Tool, Args: rec.Args, ToolUseID: rec.ToolUseID}
			if res, ok := results[rec.I]; ok {
				rr := res.rec.(*trace.Result)
				c.Result = &jsonResult{Line: res.line, OK: rr.OK, MS: rr.MS, Body: rr.Body}
			}
			v = c
		default:
			continue
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// errWriter keeps the first write error so printing code can stay linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
