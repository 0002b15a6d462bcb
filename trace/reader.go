package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/reelier/reelier/tool/jsondata"
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
	// off is how many bytes were read; start and size give the span of
	// the last record's line, its line break included.
	off, start int64
	size       int
	// long holds a line longer than the read buffer, reused line after
	// line.
	long []byte
	sum  uint64 // the last record's line sum
	// Known, when set, is asked about each record's place (its Sum
	// included) before the line is parsed: true means the same bytes
	// were read and checked before, so they are not checked for valid
	// JSON again.
	Known func(Place) bool
	// Borrow, when set, lets Next return notes, calls and results in
	// storage the reader reuses, a call's Args and a result's Body
	// sharing its read buffer: such a record, and its raw fields, are
	// valid only until the next call of Next. Records of other shapes
	// (meta records, the fields the fast path leaves to the general one)
	// are the caller's as always.
	Borrow bool
	lent   lent
}

// lent is the storage a borrowing Reader returns records in.
type lent struct {
	note   Note
	call   Call
	result Result
	// tools interns tool names written without escapes.
	tools map[string]string
}

// NewReader returns a reader of the trace in r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Line returns the number of the line the last record came from.
func (r *Reader) Line() int { return r.line }

// Place returns where the last record came from: its line number and the
// byte span of the line.
func (r *Reader) Place() Place { return Place{Line: r.line, Offset: r.start, Size: r.size, Sum: r.sum} }

// Place is where a record is in its trace file: the line's number and its
// bytes, line break included. ReadRecordAt reads the record again.
type Place struct {
	Line   int
	Offset int64
	Size   int
	// Sum identifies the line's bytes (blanks at its ends excepted) within
	// this process: two reads of a line give the same sum only when they
	// read the same bytes.
	Sum uint64
}

// lineSeed seeds line sums; sums are compared only within one process.
var lineSeed = maphash.MakeSeed()

// lineSum is a line's sum.
func lineSum(raw []byte) uint64 { return maphash.Bytes(lineSeed, raw) }

// ReadRecordAt reads the one record at p from a trace file (as a Reader
// placed it), checked as a Reader checks it.
func ReadRecordAt(r io.ReaderAt, p Place) (Record, error) {
	raw := make([]byte, p.Size)
	if n, err := r.ReadAt(raw, p.Offset); n < len(raw) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, &LineError{Line: p.Line, Msg: "not a record"}
	}
	if p.Sum != 0 && lineSum(raw) == p.Sum {
		// The same bytes a Reader checked when it gave this place.
		return parseKnown(raw, p.Line)
	}
	return ParseLine(raw, p.Line)
}

// LineReader reads single records of a trace file by their places, as
// ReadRecordAt does, for places asked for in file order: it reads the
// file through once, in large reads, instead of once per record. A place
// before the last one read is read with ReadRecordAt. A record it returns
// is lent: it, and a call's Args or a result's Body, are valid only until
// the next call of Read.
type LineReader struct {
	f   io.ReaderAt
	r   *bufio.Reader
	pos int64 // the file offset r reads next
	buf []byte
	l   lent
}

// NewLineReader returns a LineReader of the file f.
func NewLineReader(f io.ReaderAt) *LineReader {
	return &LineReader{f: f, r: bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 64<<10)}
}

// Read reads the record at p.
func (lr *LineReader) Read(p Place) (Record, error) {
	if p.Offset < lr.pos {
		return ReadRecordAt(lr.f, p)
	}
	if n, err := lr.r.Discard(int(p.Offset - lr.pos)); err != nil {
		lr.pos += int64(n)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	lr.pos = p.Offset
	lr.buf = slices.Grow(lr.buf[:0], p.Size)[:p.Size]
	n, err := io.ReadFull(lr.r, lr.buf)
	lr.pos += int64(n)
	if n < p.Size {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	raw := bytes.TrimSpace(lr.buf)
	if len(raw) == 0 {
		return nil, &LineError{Line: p.Line, Msg: "not a record"}
	}
	if p.Sum == 0 || lineSum(raw) != p.Sum {
		return ParseLine(raw, p.Line)
	}
	// The same bytes a Reader checked when it gave this place.
	if rec := parseFastInto(raw, &lr.l); rec != nil {
		return rec, nil
	}
	return parseGeneral(raw, p.Line)
}

// Next returns the next record, io.EOF at the end, or a *LineError. After a
// *LineError the reader can go on with the next line.
func (r *Reader) Next() (Record, error) {
	for {
		raw, err := r.readLine()
		r.start, r.size = r.off, len(raw)
		r.off += int64(len(raw))
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
		r.sum = lineSum(raw)
		known := r.Known != nil && r.Known(r.Place())
		if !r.Borrow {
			if known {
				return parseKnown(raw, r.line)
			}
			return ParseLine(raw, r.line)
		}
		if !known && !jsondata.Valid(raw) {
			return parseGeneral(raw, r.line)
		}
		if rec := parseFastInto(raw, &r.lent); rec != nil {
			return rec, nil
		}
		return parseGeneral(raw, r.line)
	}
}

// readLine returns the next line, its line break included, in memory the
// reader owns until the next call (ParseLine copies what it keeps).
func (r *Reader) readLine() ([]byte, error) {
	raw, err := r.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return raw, err
	}
	r.long = append(r.long[:0], raw...)
	for errors.Is(err, bufio.ErrBufferFull) {
		raw, err = r.r.ReadSlice('\n')
		r.long = append(r.long, raw...)
	}
	return r.long, err
}

// wireRecord is every field any record kind may carry, decoded in one
// pass; pointer fields tell an absent field from a zero one.
type wireRecord struct {
	T               *string                `json:"t"`
	Seq             *int64                 `json:"seq"`
	I               *int64                 `json:"i"`
	Name            *string                `json:"name"`
	StartedAt       *string                `json:"startedAt"`
	Wrapped         *[]string              `json:"wrapped"`
	ToolAnnotations map[string]Annotations `json:"toolAnnotations"`
	Observed        string                 `json:"observed"`
	Servers         []Server               `json:"servers"`
	TS              *string                `json:"ts"`
	Text            *string                `json:"text"`
	Tool            *string                `json:"tool"`
	Args            json.RawMessage        `json:"args"`
	ToolUseID       string                 `json:"toolUseId"`
	OK              *bool                  `json:"ok"`
	MS              *int64                 `json:"ms"`
	Body            json.RawMessage        `json:"body"`
	Relay           []Exchange             `json:"relay"`
	Notified        map[string]int         `json:"notified"`
	Cancelled       bool                   `json:"cancelled"`
	Policy          *PolicyDecision        `json:"policy"`
}

// ParseLine parses one non-blank trace line; line is its number, for errors.
func ParseLine(raw []byte, line int) (Record, error) {
	if !json.Valid(raw) {
		return parseGeneral(raw, line)
	}
	return parseKnown(raw, line)
}

// parseKnown parses a line already known to be valid JSON.
func parseKnown(raw []byte, line int) (Record, error) {
	if rec := parseFast(raw); rec != nil {
		return rec, nil
	}
	return parseGeneral(raw, line)
}

// parseGeneral reads any line by reflection and reports what is wrong
// with it, naming the field.
func parseGeneral(raw []byte, line int) (Record, error) {
	var w wireRecord
	err := json.Unmarshal(raw, &w)
	var te *json.UnmarshalTypeError
	switch {
	case raw[0] != '{' || err != nil && !(errors.As(err, &te) && te.Field != ""):
		return nil, &LineError{Line: line, Msg: notARecord(raw, err)}
	case err != nil:
		return nil, &LineError{Line: line, Field: te.Field, Msg: "want " + article(kindOfGo(te.Type.Kind().String()))}
	}
	if w.T == nil {
		return nil, &LineError{Line: line, Field: "t", Msg: "missing or not a string"}
	}
	v := validator{line: line}
	switch Kind(*w.T) {
	case KindMeta:
		m := &Meta{T: KindMeta, Seq: v.int("seq", w.Seq), Name: v.str("name", w.Name), StartedAt: v.str("startedAt", w.StartedAt),
			ToolAnnotations: w.ToolAnnotations, Observed: w.Observed, Servers: w.Servers}
		if w.Wrapped == nil {
			v.missing("wrapped")
		} else {
			m.Wrapped = *w.Wrapped
		}
		return m, v.err
	case KindNote:
		n := &Note{T: KindNote, Seq: v.int("seq", w.Seq), TS: v.str("ts", w.TS), Text: v.str("text", w.Text)}
		return n, v.err
	case KindCall:
		c := &Call{T: KindCall, Seq: v.int("seq", w.Seq), I: v.int("i", w.I), TS: v.str("ts", w.TS), Tool: v.str("tool", w.Tool),
			Args: v.raw("args", w.Args), ToolUseID: w.ToolUseID}
		return c, v.err
	case KindResult:
		r := &Result{T: KindResult, Seq: v.int("seq", w.Seq), I: v.int("i", w.I), MS: int64(v.int("ms", w.MS)), Body: v.raw("body", w.Body),
			Relay: w.Relay, Notified: w.Notified, Cancelled: w.Cancelled, Policy: w.Policy}
		if w.OK == nil {
			v.missing("ok")
		} else {
			r.OK = *w.OK
		}
		return r, v.err
	}
	return nil, &LineError{Line: line, Field: "t", Msg: fmt.Sprintf("unknown record type %q (want meta, note, call or result)", *w.T)}
}

// validator records the first missing or ill-typed required field.
type validator struct {
	line int
	err  error
}

func (v *validator) fail(field, msg string) {
	if v.err == nil {
		v.err = &LineError{Line: v.line, Field: field, Msg: msg}
	}
}

func (v *validator) missing(field string) { v.fail(field, "missing") }

func (v *validator) str(field string, s *string) string {
	if s == nil {
		v.missing(field)
		return ""
	}
	return *s
}

func (v *validator) int(field string, n *int64) int {
	if n == nil {
		v.missing(field)
		return 0
	}
	if *n < 0 {
		v.fail(field, "want "+article("int"))
	}
	return int(*n)
}

func (v *validator) raw(field string, r json.RawMessage) json.RawMessage {
	if r == nil {
		v.missing(field)
	}
	return r
}

// kindOfGo names the JSON type a Go kind expects, for type errors.
func kindOfGo(goKind string) string {
	switch goKind {
	case "bool":
		return "bool"
	case "slice":
		return "array"
	case "string":
		return "string"
	}
	return "int"
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

// parseFast reads the common records — notes, calls and results whose
// fields are all present and plainly typed — without reflection. It
// returns nil for anything else (a meta record, a missing or ill-typed
// field, a null, an escape in a number's place), which the general path
// then reads and, where it must, rejects with the exact error. Both paths
// give the same record for every line the fast one accepts.
//
// raw must be valid JSON (ParseLine checks it).
func parseFast(raw []byte) Record { return parseFastInto(raw, nil) }

// parseFastInto is parseFast, returning the record in into, its raw
// fields sharing raw, when into is not nil.
func parseFastInto(raw []byte, into *lent) Record {
	var (
		t, ts, tool, text, toolUseID  string
		hasT, hasTS, hasTool, hasText bool
		seq, i, ms                    = int64(-1), int64(-1), int64(-1)
		args, body                    []byte
		ok                            = -1
	)
	str := func(v []byte, dst *string, has *bool) bool {
		if len(v) < 2 || v[0] != '"' {
			return false
		}
		*has = true
		in := v[1 : len(v)-1]
		if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			*dst = string(in)
			return true
		}
		// Decoded into a string of its own, so that dst does not escape:
		// the fields stay off the heap.
		var s string
		if json.Unmarshal(v, &s) != nil {
			return false
		}
		*dst = s
		return true
	}
	num := func(v []byte, dst *int64) bool {
		if len(v) == 0 || len(v) > 18 || (len(v) > 1 && v[0] == '0') {
			return false
		}
		var n int64
		for _, c := range v {
			if c < '0' || c > '9' {
				return false
			}
			n = n*10 + int64(c-'0')
		}
		*dst = n
		return true
	}
	var unused bool
	fine := jsondata.EachMember(raw, func(key []byte, esc bool, v []byte) bool {
		if esc {
			return false
		}
		switch string(key) {
		case "t":
			// The kinds are constants: no string is made for them.
			switch string(v) {
			case `"call"`:
				t, hasT = string(KindCall), true
				return true
			case `"result"`:
				t, hasT = string(KindResult), true
				return true
			case `"note"`:
				t, hasT = string(KindNote), true
				return true
			}
			return str(v, &t, &hasT)
		case "ts":
			return str(v, &ts, &hasTS)
		case "tool":
			if into != nil && len(v) >= 2 && v[0] == '"' {
				// A trace calls the same few tools over and over.
				if name, ok := into.tools[string(v[1:len(v)-1])]; ok {
					tool, hasTool = name, true
					return true
				}
				if !str(v, &tool, &hasTool) {
					return false
				}
				if len(into.tools) < 256 && bytes.IndexByte(v, '\\') < 0 {
					if into.tools == nil {
						into.tools = map[string]string{}
					}
					into.tools[tool] = tool
				}
				return true
			}
			return str(v, &tool, &hasTool)
		case "text":
			return str(v, &text, &hasText)
		case "toolUseId":
			return str(v, &toolUseID, &unused)
		case "seq":
			return num(v, &seq)
		case "i":
			return num(v, &i)
		case "ms":
			return num(v, &ms)
		case "args":
			args = v
			return string(v) != "null"
		case "body":
			body = v
			return string(v) != "null"
		case "ok":
			switch string(v) {
			case "true":
				ok = 1
			case "false":
				ok = 0
			default:
				return false
			}
			return true
		case "name", "startedAt", "wrapped", "toolAnnotations", "observed", "servers",
			"relay", "notified", "cancelled", "policy":
			// A meta record's fields, and a result's relay fields: left
			// to the general path.
			return false
		}
		// encoding/json matches keys without regard to case: a key that
		// differs from a field's only in case is left to the general
		// path, which decides as it always has.
		for _, f := range fastFields {
			if bytes.EqualFold(key, []byte(f)) {
				return false
			}
		}
		// Unknown extra fields are tolerated, as the general path
		// tolerates them.
		return true
	})
	if !fine || !hasT || seq < 0 {
		return nil
	}
	switch Kind(t) {
	case KindNote:
		if hasTS && hasText {
			if into != nil {
				into.note = Note{T: KindNote, Seq: int(seq), TS: ts, Text: text}
				return &into.note
			}
			return &Note{T: KindNote, Seq: int(seq), TS: ts, Text: text}
		}
	case KindCall:
		if i >= 0 && args != nil && hasTool && hasTS {
			if into != nil {
				into.call = Call{T: KindCall, Seq: int(seq), I: int(i), TS: ts, Tool: tool, Args: args, ToolUseID: toolUseID}
				return &into.call
			}
			return &Call{T: KindCall, Seq: int(seq), I: int(i), TS: ts, Tool: tool, Args: bytes.Clone(args), ToolUseID: toolUseID}
		}
	case KindResult:
		if i >= 0 && ms >= 0 && ok >= 0 && body != nil {
			if into != nil {
				into.result = Result{T: KindResult, Seq: int(seq), I: int(i), MS: ms, OK: ok == 1, Body: body}
				return &into.result
			}
			return &Result{T: KindResult, Seq: int(seq), I: int(i), MS: ms, OK: ok == 1, Body: bytes.Clone(body)}
		}
	}
	return nil
}

// fastFields are the keys parseFast reads, and the meta fields it leaves.
var fastFields = []string{"t", "ts", "tool", "text", "toolUseId", "seq", "i", "ms", "args", "body", "ok",
	"name", "startedAt", "wrapped", "toolAnnotations", "observed", "servers", "relay", "notified", "cancelled", "policy"}
