// Package render prints a trace file for reading (`reelier trace`): its
// meta record as a header, every note as a heading, every call with its
// result and an excerpt of the body; or, for tools, one JSON object per
// meta, note and call, each call with its result. Text that came from the
// trace — names, notes, arguments, bodies — is escaped for the terminal
// (internal/termtext).
package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// excerptLen is how many characters of arguments and bodies are shown.
const excerptLen = 160

// Lined is a record and the line it came from.
type Lined struct {
	Rec  trace.Record
	Line int
}

// Trace is a trace file as read for printing.
type Trace struct {
	// Records are the valid records in file order.
	Records []Lined
	// Problems are the invalid lines and structural faults (meta not
	// first, a duplicate call, a result without its call), by line.
	Problems []*trace.LineError
	// results maps a call index to its result.
	results map[int]Lined
}

// Empty reports whether the file held no line at all.
func (t *Trace) Empty() bool { return len(t.Records) == 0 && len(t.Problems) == 0 }

// Read reads every valid record and collects a problem for every invalid
// line and every structural fault, reading on past each. Only an I/O
// error stops it.
func Read(r io.Reader) (*Trace, error) {
	rd := trace.NewReader(r)
	t := &Trace{results: map[int]Lined{}}
	var chk trace.Checker
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *trace.LineError
		if errors.As(err, &le) {
			t.Problems = append(t.Problems, le)
			continue
		}
		if err != nil {
			return nil, err
		}
		line := rd.Line()
		// The structural faults, worded as compile's reading words them.
		if bad := chk.Check(rec, line); bad != nil {
			t.Problems = append(t.Problems, bad)
		}
		if rec, ok := rec.(*trace.Result); ok {
			t.results[rec.I] = Lined{rec, line}
		}
		t.Records = append(t.Records, Lined{rec, line})
	}
	sort.SliceStable(t.Problems, func(i, j int) bool { return t.Problems[i].Line < t.Problems[j].Line })
	return t, nil
}

// WriteProblems writes each problem as path:line: reason (trace.FileError,
// the form reelier compile reports it in too), one a line, escaped for the
// terminal.
func (t *Trace) WriteProblems(w io.Writer, path string) error {
	ew := &errWriter{w: w}
	for _, p := range t.Problems {
		ew.printf("%s\n", termtext.Line(trace.InFile(path, p).Error()))
	}
	return ew.err
}

// painter wraps text in ANSI colours when on is set.
type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Text prints the trace for reading, in colour when color is set; every
// call is followed by its result, wherever the result was in the file.
func (t *Trace) Text(w io.Writer, color bool) error {
	p := painter(color)
	ew := &errWriter{w: w}
	line := termtext.Line
	for _, r := range t.Records {
		switch rec := r.Rec.(type) {
		case *trace.Meta:
			ew.printf("%s %s · started %s", p.paint("1", "trace"), p.paint("1", line(rec.Name)), line(rec.StartedAt))
			if len(rec.Wrapped) > 0 {
				ew.printf(" · wrapped: %s", line(strings.Join(rec.Wrapped, ", ")))
			}
			ew.printf("\n")
			for _, name := range slices.Sorted(maps.Keys(rec.ToolAnnotations)) {
				ew.printf("  %s: %s\n", p.paint("2", line(name)), hints(rec.ToolAnnotations[name]))
			}
		case *trace.Note:
			ew.printf("\n%s\n", p.paint("1;36", "## "+line(rec.Text)))
		case *trace.Call:
			ew.printf("%s %s %s\n", p.paint("2", fmt.Sprintf("[%d]", rec.I)), p.paint("1", line(rec.Tool)), excerpt(string(rec.Args)))
			res, ok := t.results[rec.I]
			if !ok {
				ew.printf("    %s\n", p.paint("33", "no result"))
				continue
			}
			ew.printf("    %s\n", resultLine(res.Rec.(*trace.Result), p))
		}
	}
	return ew.err
}

func resultLine(r *trace.Result, p painter) string {
	status := p.paint("32", "ok")
	if !r.OK {
		status = p.paint("31", "error")
	}
	return fmt.Sprintf("%s %s%s %s", status, p.paint("2", fmt.Sprintf("%d ms", r.MS)), policyNote(r.Policy, p), bodyExcerpt(r))
}

// policyNote is what the policy in force decided, when one was: its
// action and the deciding rule (and, for ask, the answer).
func policyNote(d *trace.PolicyDecision, p painter) string {
	if d == nil {
		return ""
	}
	s := "policy " + termtext.Line(d.Action)
	if d.Rule != "" {
		s += " by " + termtext.Line(strconv.Quote(d.Rule))
	}
	if d.Asked != "" {
		s += " (asked: " + termtext.Line(d.Asked) + ")"
	}
	return " " + p.paint("2", "["+s+"]")
}

// bodyExcerpt shows the text of an MCP result, the marker of a truncated
// body, or the raw JSON of anything else.
func bodyExcerpt(r *trace.Result) string {
	if t, ok := r.Truncated(); ok {
		return fmt.Sprintf("[truncated from %d chars] %s", t.OriginalLength, excerpt(t.Preview))
	}
	if res, err := tool.ParseToolResult(r.Body); err == nil {
		text := res.Text()
		if strings.TrimSpace(text) == "" && res.Structured != nil {
			text = string(res.Structured)
		}
		return excerpt(text)
	}
	return excerpt(string(r.Body))
}

// excerpt puts s on one line, cuts it to excerptLen characters and
// escapes it for the terminal.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > excerptLen {
		s = string([]rune(s)[:excerptLen]) + "…"
	}
	return termtext.Line(s)
}

func hints(a trace.Annotations) string {
	var parts []string
	for _, h := range a.Declared() {
		parts = append(parts, fmt.Sprintf("%s=%t", h.Name, h.Value))
	}
	return strings.Join(parts, " ")
}

// The JSON shapes.
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
		Line   int                   `json:"line"`
		OK     bool                  `json:"ok"`
		MS     int64                 `json:"ms"`
		Body   json.RawMessage       `json:"body"`
		Policy *trace.PolicyDecision `json:"policy,omitempty"`
	}
)

// JSON prints one JSON object per meta, note and call (with its result),
// each with the line it came from. JSON escapes control characters
// itself; the text is otherwise as recorded.
func (t *Trace) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range t.Records {
		var v any
		switch rec := r.Rec.(type) {
		case *trace.Meta:
			v = jsonMeta{Kind: "meta", Line: r.Line, Name: rec.Name, StartedAt: rec.StartedAt, Wrapped: rec.Wrapped, ToolAnnotations: rec.ToolAnnotations}
		case *trace.Note:
			v = jsonNote{Kind: "note", Line: r.Line, TS: rec.TS, Text: rec.Text}
		case *trace.Call:
			c := jsonCall{Kind: "call", Line: r.Line, I: rec.I, TS: rec.TS, Tool: rec.Tool, Args: rec.Args, ToolUseID: rec.ToolUseID}
			if res, ok := t.results[rec.I]; ok {
				rr := res.Rec.(*trace.Result)
				c.Result = &jsonResult{Line: res.Line, OK: rr.OK, MS: rr.MS, Body: rr.Body, Policy: rr.Policy}
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
