package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// LineError is a problem with one line of a trace.
type LineError struct {
	Line  int
	Field string // the offending field, or "" for the line as a whole
	Msg   string
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: field %q: %s", e.Line, e.Field, e.Msg)
}

// Reader reads trace records one line at a time.
type Reader struct {
	r    *bufio.Reader
	line int
}

// NewReader returns a reader of the trace in r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Line returns the number of the line the last record came from.
func (r *Reader) Line() int { return r.line }

// Next returns the next record, io.EOF at the end, or a *LineError. After a
// *LineError the reader can go on with the next line.
func (r *Reader) Next() (Record, error) {
	for {
		raw, err := r.r.ReadBytes('\n')
		if len(raw) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, err
		}
		r.line++
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			if err != nil {
				return nil, io.EOF
			}
			continue
		}
		return ParseLine(raw, r.line)
	}
}

// field describes one required field for validation messages.
type field struct {
	name string
	kind string // "string", "int", "bool", "array", "any"
}

var required = map[Kind][]field{
	KindMeta:   {{"seq", "int"}, {"name", "string"}, {"startedAt", "string"}, {"wrapped", "array"}},
	KindNote:   {{"seq", "int"}, {"ts", "string"}, {"text", "string"}},
	KindCall:   {{"seq", "int"}, {"i", "int"}, {"ts", "string"}, {"tool", "string"}, {"args", "any"}},
	KindResult: {{"seq", "int"}, {"i", "int"}, {"ok", "bool"}, {"ms", "int"}, {"body", "any"}},
}

// ParseLine parses one non-blank trace line; line is its number, for errors.
func ParseLine(raw []byte, line int) (Record, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, &LineError{Line: line, Msg: "not a JSON object: " + err.Error()}
	}
	var t string
	if err := json.Unmarshal(fields["t"], &t); err != nil || fields["t"] == nil {
		return nil, &LineError{Line: line, Field: "t", Msg: "missing or not a string"}
	}
	kind := Kind(t)
	specs, ok := required[kind]
	if !ok {
		return nil, &LineError{Line: line, Field: "t", Msg: fmt.Sprintf("unknown record type %q (want meta, note, call or result)", t)}
	}
	for _, f := range specs {
		v, present := fields[f.name]
		if !present {
			return nil, &LineError{Line: line, Field: f.name, Msg: "missing"}
		}
		if !hasKind(v, f.kind) {
			return nil, &LineError{Line: line, Field: f.name, Msg: "want " + article(f.kind)}
		}
	}
	var rec Record
	switch kind {
	case KindMeta:
		rec = &Meta{}
	case KindNote:
		rec = &Note{}
	case KindCall:
		rec = &Call{}
	default:
		rec = &Result{}
	}
	if err := json.Unmarshal(raw, rec); err != nil {
		return nil, &LineError{Line: line, Msg: err.Error()}
	}
	return rec, nil
}

func article(kind string) string {
	switch kind {
	case "int":
		return "a non-negative integer"
	case "array":
		return "an array"
	case "any":
		return "a JSON value"
	}
	return "a " + kind
}

// hasKind checks a raw JSON value's type without decoding all of it.
func hasKind(v json.RawMessage, kind string) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	switch kind {
	case "string":
		return v[0] == '"'
	case "bool":
		return string(v) == "true" || string(v) == "false"
	case "array":
		return v[0] == '['
	case "int":
		for _, c := range v {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return true
}
