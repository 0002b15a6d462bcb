package agentcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ParseError is a config file that is not a JSON object; nothing is
// changed in a file that gives one.
type ParseError struct {
	Path         string
	Line, Column int // 1-based, the column in characters; 0 when the position is unknown
	Err          error
}

// Error renders path:line:col: problem.
func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Column, e.Err)
}

// Unwrap returns the JSON error.
func (e *ParseError) Unwrap() error { return e.Err }

// span is a byte range of the config text.
type span struct{ start, end int }

// member is one member of a JSON object: its key, the whitespace just
// before the key (after the comma, if any), the text between the key and
// the value (the colon and its blanks), and the value's range.
type member struct {
	key   string
	lead  string
	colon string
	value span
}

// members lists the members of the object at data[s.start:s.end], in
// order, with ranges relative to data.
func members(data []byte, s span) ([]member, error) {
	obj := data[s.start:s.end]
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	prev := int(dec.InputOffset()) // just after "{", then after each value
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		keyEnd := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		out = append(out, member{
			key:   key,
			lead:  leadingSpace(obj[prev:keyEnd]),
			colon: string(obj[keyEnd:start]),
			value: span{s.start + start, s.start + end},
		})
		prev = end
	}
	return out, nil
}

// leadingSpace returns the whitespace between the comma (if any) and the
// opening quote of a key, from the text that runs from the end of the
// previous member to the end of the key.
func leadingSpace(b []byte) string {
	q := bytes.IndexByte(b, '"')
	if q < 0 {
		return ""
	}
	lead := b[:q]
	if c := bytes.LastIndexByte(lead, ','); c >= 0 {
		lead = lead[c+1:]
	}
	return string(lead)
}

// find returns the member named key, or nil.
func find(ms []member, key string) *member {
	for i := range ms {
		if ms[i].key == key {
			return &ms[i]
		}
	}
	return nil
}

// checkObject reports a config that is not one JSON object, with the
// line and column of the first problem. data is what is parsed; orig,
// the same length, is the file as it is, where positions are counted
// (they differ where comments were blanked out).
func checkObject(path string, data, orig []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&v)
	if err == nil {
		if _, ok := v.(map[string]any); !ok {
			return &ParseError{Path: path, Err: errors.New("the file is not a JSON object")}
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return &ParseError{Path: path, Err: errors.New("the file holds more than one JSON value")}
		}
		return nil
	}
	pe := &ParseError{Path: path, Err: err}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		pe.Line, pe.Column = position(orig, int(se.Offset)-1) // Offset counts the offending byte
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		pe.Err = errors.New("unexpected end of JSON input")
		pe.Line, pe.Column = position(orig, len(orig))
	}
	return pe
}

// position turns a byte offset into a 1-based line and a 1-based column
// counted in characters (Unicode code points, an invalid byte counting as
// one), the unit editors show and reelier's diagnostics use.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	col = 1
	for i := start; i < off; col++ {
		_, size := utf8.DecodeRune(data[i:])
		if i+size > off { // off is inside a character: give its column
			break
		}
		i += size
	}
	return line, col
}
