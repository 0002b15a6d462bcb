package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// FileError is a problem reading the trace file at Path. Its text is the
// one form every command reports a trace's problems in: "PATH:LINE:
// reason" for a line's problem (a *LineError), "PATH: reason" otherwise,
// naming the file once.
type FileError struct {
	Path string
	Err  error
}

// InFile returns err as a problem of the trace file at path: nil for nil,
// err itself when it is already a *FileError.
func InFile(path string, err error) error {
	var fe *FileError
	if err == nil || errors.As(err, &fe) {
		return err
	}
	return &FileError{Path: path, Err: err}
}

func (e *FileError) Error() string {
	var le *LineError
	if errors.As(e.Err, &le) {
		return fmt.Sprintf("%s:%d: %s", e.Path, le.Line, le.Reason())
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) && pe.Path == e.Path {
		return fmt.Sprintf("%s: cannot %s it: %v", e.Path, pe.Op, pe.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, strings.TrimPrefix(e.Err.Error(), e.Path+": "))
}

func (e *FileError) Unwrap() error { return e.Err }

// Reason is the problem without its line number: the field at fault, if
// one is, and what is wrong with it.
func (e *LineError) Reason() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
}

// maxQuoted bounds the start of a line quoted in a problem.
const maxQuoted = 40

// notARecord explains a line that is not a JSON object, err being what
// decoding it into a record said: what was expected, what the line holds,
// and, for text that is not JSON at all, the decoder's reason.
func notARecord(raw []byte, err error) string {
	const want = "not a JSON record: expected a JSON object"
	if json.Valid(raw) {
		kinds := map[byte]string{'[': "an array", '"': "a string", 't': "a boolean", 'f': "a boolean", 'n': "null"}
		kind, ok := kinds[raw[0]]
		if !ok {
			kind = "a number"
		}
		if kind == "null" {
			return want + ", found null"
		}
		return fmt.Sprintf("%s, found %s: %s", want, kind, quoteStart(raw))
	}
	reason := err.Error()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// "… in literal null (expecting 'u')" reads better without the
		// nested parentheses.
		if i := strings.LastIndex(reason, " (expecting "); i > 0 && strings.HasSuffix(reason, ")") {
			reason = reason[:i] + ", expecting " + reason[i+len(" (expecting "):len(reason)-1]
		}
	}
	if raw[0] == '{' {
		return fmt.Sprintf("not a JSON record: expected a complete JSON object, found %s (%s)", quoteStart(raw), reason)
	}
	return fmt.Sprintf("%s, found %s (%s)", want, quoteStart(raw), reason)
}

// quoteStart quotes the start of a line, marking a cut.
func quoteStart(raw []byte) string {
	s, cut := raw, false
	if utf8.RuneCount(s) > maxQuoted {
		n := 0
		for i := range string(s) {
			if n == maxQuoted {
				s, cut = s[:i], true
				break
			}
			n++
		}
	}
	q := fmt.Sprintf("%q", s)
	if cut {
		q = q[:len(q)-1] + `…"`
	}
	return q
}

// Checker makes the checks of a trace's structure that every reader
// relies on, one record at a time: the first record is the one meta
// record, call indexes are unique, and each result follows the call with
// its index and is its only result. Scan stops at its first problem;
// a reader that reports every problem (reelier trace) goes on, and each
// problem is reported once.
type Checker struct {
	// dense flags the call indexes below its length (a call, a result);
	// sparse those beyond. Indexes are mostly 0, 1, 2…, so a slice
	// holds nearly all of them.
	dense    []uint8
	sparse   map[int]uint8
	n        int
	haveMeta bool
}

const (
	sawCall uint8 = 1 << iota
	sawResult
)

// has reports whether the index i has the flag.
func (c *Checker) has(i int, flag uint8) bool {
	if i >= 0 && i < len(c.dense) && c.dense[i]&flag != 0 {
		return true
	}
	return c.sparse[i]&flag != 0
}

// mark gives the index i the flag.
func (c *Checker) mark(i int, flag uint8) {
	if i >= 0 && i < 2*c.n+1024 {
		if i >= len(c.dense) {
			c.dense = append(c.dense, make([]uint8, max(i+1, 2*len(c.dense))-len(c.dense))...)
		}
		c.dense[i] |= flag
		return
	}
	if c.sparse == nil {
		c.sparse = map[int]uint8{}
	}
	c.sparse[i] |= flag
}

// Check checks the record read from line, after those before it.
func (c *Checker) Check(rec Record, line int) *LineError {
	first := c.n == 0
	c.n++
	switch rec := rec.(type) {
	case *Meta:
		switch {
		case c.haveMeta:
			return &LineError{Line: line, Field: "t", Msg: "a second meta record; a trace has exactly one, first"}
		case !first:
			return &LineError{Line: line, Field: "t", Msg: "the meta record must be the first record"}
		}
		c.haveMeta = true
		return nil
	case *Call:
		if c.has(rec.I, sawCall) {
			return &LineError{Line: line, Field: "i", Msg: fmt.Sprintf("duplicate call index %d", rec.I)}
		}
		c.mark(rec.I, sawCall)
	case *Result:
		if !c.has(rec.I, sawCall) {
			return &LineError{Line: line, Field: "i", Msg: fmt.Sprintf("result for call index %d, which has no earlier call", rec.I)}
		}
		if c.has(rec.I, sawResult) {
			return &LineError{Line: line, Field: "i", Msg: fmt.Sprintf("a second result for call index %d", rec.I)}
		}
		c.mark(rec.I, sawResult)
	}
	if first {
		return &LineError{Line: line, Field: "t", Msg: "the first record must be meta"}
	}
	return nil
}

// Empty reports whether no record was checked.
func (c *Checker) Empty() bool { return c.n == 0 }
