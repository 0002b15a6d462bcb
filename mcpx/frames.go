package mcpx

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/reelier/reelier/tool/jsondata"
)

// The SDK's stdio transport reads a stream of JSON values and gives up on
// the whole connection at the first one it cannot read: a stray print()
// on a server's stdout, a line of garbage from a client, or a message
// over its 16 MiB frame limit ends the session. A FrameReader stands
// between the stream and the SDK and passes on only what the SDK can
// read; every other line is handed to a callback, which decides what, if
// anything, to pass on in its place.

// DefaultMaxMessage is the largest JSON-RPC message, in bytes, read from
// an agent or a downstream unless told otherwise: 64 MiB, the largest
// body the http tools accept.
const DefaultMaxMessage = 64 << 20

// ErrNotJSON is the Err of a RejectedLine that is not JSON at all.
var ErrNotJSON = errors.New("not JSON")

// A RejectedLine is a line of a JSON-RPC stream that a FrameReader did not
// pass on.
type RejectedLine struct {
	// Line is the line, trimmed of white space; for a line over the limit,
	// only its first bytes (up to 1 KiB).
	Line []byte
	// Size is the length of the whole line in bytes, its line break not
	// counted.
	Size int64
	// TooLarge is set for a line over the limit; Err is nil then.
	TooLarge bool
	// Err says why the line is not a message: ErrNotJSON, or why the JSON
	// is not a JSON-RPC message (or batch).
	Err error
	// ID is the value of the line's top-level "id" member, a JSON string
	// or number, when the line is an object that has one; nil otherwise.
	// It is read even from a line over the limit, wherever the member is.
	ID json.RawMessage
	// Method is set when the line is an object with a top-level "method"
	// member: a request or a notification rather than a response.
	Method bool
}

// headSize bounds RejectedLine.Line for a line over the limit.
const headSize = 1 << 10

// keepBuffer is the largest line buffer kept from one line to the next; a
// larger one, grown for an unusually large message, is let go.
const keepBuffer = 1 << 20

// NewFrameReader returns a reader of the newline-delimited JSON-RPC
// stream r that passes on, line by line, what the SDK's stdio transport
// can read: each line that holds one JSON-RPC message (or a non-empty
// batch of them) and is at most limit bytes long (DefaultMaxMessage if
// limit <= 0), trimmed of surrounding white space. Blank lines are
// dropped. Every other line goes to reject, which is called on the
// reading goroutine; what it returns — a JSON-RPC message, or nil for
// nothing — is passed on in the line's place. A line over the limit is
// never held in memory whole.
//
// Closing the reader closes r if r is an io.Closer.
func NewFrameReader(r io.Reader, limit int, reject func(*RejectedLine) []byte) *FrameReader {
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	return &FrameReader{src: r, r: bufio.NewReaderSize(r, 64<<10), limit: limit, reject: reject, scan: *newMemberScan()}
}

// A FrameReader is the reader NewFrameReader returns.
type FrameReader struct {
	// Batches, if set, says whether a batch may be passed on now; a batch
	// it refuses is rejected. The SDK's server refuses batches, ending
	// the connection, once a protocol revision without them (2025-06-18
	// and later) is negotiated.
	Batches func() bool
	// Divert, if set, is shown each message (a JSON object, not a batch)
	// the reader is about to pass on, on the reading goroutine and in
	// the order of the stream; when it returns true the message is not
	// passed on: Divert has taken it. The Frame and the bytes it points
	// to are valid only during the call. The recording proxy's fast path
	// for tools/call takes its messages this way (see CallRaw).
	Divert func(*Frame) bool
	// Done, if set, is called once with the source's error (io.EOF at
	// its end) when the reader meets it, after every line before it was
	// passed on or diverted.
	Done func(error)

	src    io.Reader
	r      *bufio.Reader
	limit  int
	reject func(*RejectedLine) []byte
	line   []byte // the line being read
	out    []byte // what is still to be passed on
	err    error  // the source's error, returned once out is drained
	scan   memberScan
	frame  Frame // what Divert is shown
}

// A Frame is a JSON-RPC message a FrameReader is about to pass on, as
// FrameReader.Divert sees it.
type Frame struct {
	// Line is the message, trimmed of surrounding white space, without
	// its line break.
	Line []byte
	// ID is the value of the top-level "id" member when it is a JSON
	// string or number, else nil (no id, or null).
	ID []byte
	// Method is the value of the top-level "method" member, "" for a
	// response.
	Method string
}

// ErrBatch is the Err of a RejectedLine that is a batch when
// FrameReader.Batches refuses them.
var ErrBatch = errors.New("a batch, which the protocol revision in use does not allow")

func (f *FrameReader) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

func (f *FrameReader) Close() error {
	if c, ok := f.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// next reads one line and sets out to what is passed on for it.
func (f *FrameReader) next() {
	if cap(f.line) > keepBuffer {
		f.line = nil
	}
	f.line = f.line[:0]
	chunk, err := f.r.ReadSlice('\n')
	if err == nil && len(chunk) <= f.limit+2 {
		// The usual case: the whole line is in the reader's buffer, where
		// it stays until the next read, which comes after out is drained.
		f.finish(chunk)
		return
	}
	var (
		scan *memberScan // set once the line is over the limit
		head []byte
		size int64
		last byte // the byte before the chunk being read
		term int  // the length of the line break: 0, 1 (LF) or 2 (CRLF)
	)
	for {
		size += int64(len(chunk))
		if n := len(chunk); n > 0 && chunk[n-1] == '\n' {
			term = 1
			if n > 1 && chunk[n-2] == '\r' || n == 1 && last == '\r' {
				term = 2
			}
		}
		if n := len(chunk); n > 0 {
			last = chunk[n-1]
		}
		if scan == nil && len(f.line)+len(chunk) > f.limit+2 {
			scan = newMemberScan()
			head = append(head, f.line[:min(len(f.line), headSize)]...)
			head = append(head, chunk[:min(len(chunk), headSize)]...)
			head = trimJSONSpace(head[:min(len(head), headSize)])
			scan.feed(f.line)
			f.line = nil
		}
		if scan != nil {
			scan.feed(chunk)
		} else {
			f.line = append(f.line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = f.r.ReadSlice('\n')
			continue
		}
		if err != nil {
			f.err = err
		}
		break
	}
	if f.err != nil {
		defer f.done()
	}
	if scan != nil {
		if !scan.begun {
			return // a long run of white space: a blank line
		}
		f.pass(&RejectedLine{Line: head, Size: size - int64(term), TooLarge: true, ID: scan.id(), Method: scan.method()})
		return
	}
	f.finish(f.line)
}

// finish sets out to what is passed on for the whole line b.
func (f *FrameReader) finish(b []byte) {
	start, end := trimBounds(b)
	line := b[start:end]
	switch {
	case len(line) == 0:
		return
	case len(line) > f.limit:
		f.scan.reset()
		f.scan.feed(line)
		f.pass(&RejectedLine{Line: line[:min(len(line), headSize)], Size: int64(len(line)), TooLarge: true, ID: f.scan.id(), Method: f.scan.method()})
		return
	}
	err := checkMessage(line, &f.scan)
	if err == nil && line[0] == '[' && f.Batches != nil && !f.Batches() {
		err = ErrBatch
	}
	if err != nil {
		f.scan.reset()
		f.scan.feed(line)
		f.pass(&RejectedLine{Line: line, Size: int64(len(line)), Err: err, ID: f.scan.id(), Method: f.scan.method()})
		return
	}
	if f.Divert != nil && line[0] == '{' && f.divert(line) {
		return
	}
	// The line break goes where the trimmed white space was (or after).
	f.out = append(b[:end], '\n')[start:]
}

// divert shows the message line, a JSON object that checkMessage
// accepted (and scanned), to Divert.
func (f *FrameReader) divert(line []byte) bool {
	fr := &f.frame
	*fr = Frame{Line: line}
	if !f.scan.unsure {
		fr.ID = f.scan.rawID()
		if f.scan.seen[memberMethod] {
			fr.Method = methodName(f.scan.vals[memberMethod])
		}
	} else {
		// A member too long for the scan: pick them out whole.
		var method []byte
		var hasMethod bool
		fr.ID, method, hasMethod = idAndMethod(line)
		if hasMethod {
			fr.Method = methodName(method)
		}
	}
	return f.Divert(fr)
}

// done reports the source's error to Done, once.
func (f *FrameReader) done() {
	if f.Done != nil {
		d := f.Done
		f.Done = nil
		d(f.err)
	}
}

// pass sets out to what reject returns for l, ending it with a line
// break.
func (f *FrameReader) pass(l *RejectedLine) {
	if f.reject == nil {
		return
	}
	out := f.reject(l)
	if f.Divert != nil && len(out) > 0 && out[0] == '{' && f.divertReplacement(out) {
		return // taken, as the line it stands for would have been
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out[:len(out):len(out)], '\n')
	}
	f.out = out
}

// divertReplacement shows Divert what reject put in a rejected line's
// place when it is a response (a JSON-RPC error for the line's id): the
// response to a request Divert's owner made itself (a raw call) is that
// owner's to take, as the rejected line would have been.
func (f *FrameReader) divertReplacement(out []byte) bool {
	start, end := trimBounds(out)
	line := out[start:end]
	fr := &f.frame
	*fr = Frame{Line: line}
	var method bool
	fr.ID, _, method = idAndMethod(line)
	return !method && fr.ID != nil && f.Divert(fr)
}

// idAndMethod reads a message line's members whole: its id when that is
// a string or a number (else nil), and the raw value of its method, if it
// has one. Where a member is repeated, the last one counts.
func idAndMethod(line []byte) (id, method []byte, hasMethod bool) {
	EachMember(line, func(key, value []byte) bool {
		switch {
		case KeyIs(key, "id"):
			id = nil
			if c := value[0]; c == '"' || c == '-' || c >= '0' && c <= '9' {
				id = value
			}
		case KeyIs(key, "method"):
			method, hasMethod = value, true
		}
		return true
	})
	return id, method, hasMethod
}

// maxDepth is the deepest nesting of objects and arrays the SDK decodes.
const maxDepth = 1000

var errTooDeep = fmt.Errorf("JSON nested deeper than %d levels", maxDepth)

// checkMessage returns why line is not something the SDK's stdio
// transport reads as a JSON-RPC message or batch, or nil. It makes the
// checks of the transport's decoder (encoding/json's syntax) and of the
// SDK's message decoding (jsonrpc.DecodeMessage: nesting depth, the
// "jsonrpc" tag, the types of "id", "method" and "error", an id on a
// response) without DecodeMessage's cost — a fresh decoder with 64 KiB of
// buffers per call, and a copy of the result: one syntax check, then one
// pass over the bytes that picks out the four members (s, reused).
func checkMessage(line []byte, s *memberScan) error {
	if !jsondata.Valid(line) {
		return ErrNotJSON
	}
	switch line[0] {
	case '{':
		return checkObject(line, s)
	case '[':
		var batch []member
		if err := json.Unmarshal(line, &batch); err != nil {
			return err
		}
		if len(batch) == 0 {
			return errors.New("an empty batch")
		}
		if nestedTooDeep(line) {
			return errTooDeep
		}
		ids := map[string]bool{}
		for _, m := range batch {
			if len(m) == 0 || m[0] != '{' {
				return errors.New("in a batch: JSON that is not an object")
			}
			if err := checkObject(m, s); err != nil {
				return fmt.Errorf("in a batch: %w", err)
			}
			if id := s.id(); id != nil && s.method() {
				if ids[string(id)] {
					return fmt.Errorf("in a batch: two requests with the id %s", id)
				}
				ids[string(id)] = true
			}
		}
		return nil
	}
	return errors.New("JSON that is not an object")
}

// checkObject checks one message: b is a valid JSON object.
func checkObject(b []byte, s *memberScan) error {
	s.reset()
	s.feed(b)
	if s.deepest > maxDepth {
		return errTooDeep
	}
	if s.dup {
		// The SDK's decoder decodes every occurrence of a member, and
		// fails on one of the wrong type even if the last is right.
		var wire struct {
			Version string         `json:"jsonrpc"`
			ID      any            `json:"id"`
			Method  string         `json:"method"`
			Error   *jsonrpc.Error `json:"error"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			return err
		}
	}
	if s.unsure {
		// A member too long to pick out, or a key with an escape in it:
		// decode the members the slow way.
		var m map[string]member // exact key matches, as the SDK's decoder makes
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		return checkMembers(func(name string) ([]byte, bool) {
			raw, ok := m[name]
			return raw, ok
		})
	}
	return checkMembers(func(name string) ([]byte, bool) {
		k := slices.Index(memberNames[:], name)
		return s.vals[k], s.seen[k]
	})
}

// checkMembers checks the members of a message as DecodeMessage does;
// get returns a member's JSON and whether the message has it.
func checkMembers(get func(string) ([]byte, bool)) error {
	// The members are valid JSON (the line was checked whole), so the
	// usual shapes need no decoding: a string decodes as a string, and a
	// short integer as a float64.
	var version string
	if raw, ok := get("jsonrpc"); ok && string(raw) != `"2.0"` {
		if err := json.Unmarshal(raw, &version); err != nil {
			return fmt.Errorf("jsonrpc: %w", err)
		}
		if version != "2.0" {
			return fmt.Errorf("invalid message version tag %q; expected %q", version, "2.0")
		}
	} else if !ok {
		return fmt.Errorf("invalid message version tag %q; expected %q", "", "2.0")
	}
	hasID := false
	if raw, ok := get("id"); ok {
		if raw[0] == '"' || shortInteger(raw) {
			hasID = true
		} else {
			var id any
			if err := json.Unmarshal(raw, &id); err != nil {
				return fmt.Errorf("id: %w", err)
			}
			switch id.(type) {
			case nil:
			case float64, string:
				hasID = true
			default:
				return fmt.Errorf("invalid ID type %T", id)
			}
		}
	}
	if raw, ok := get("error"); ok {
		var e *jsonrpc.Error
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("error: %w", err)
		}
	}
	if raw, ok := get("method"); ok {
		if raw[0] == '"' {
			return nil
		}
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return fmt.Errorf("method: %w", err)
		}
		return nil
	}
	if !hasID {
		return errors.New("a response without an id")
	}
	return nil
}

// shortInteger reports whether the JSON number raw is an integer of at
// most 15 digits, which decodes as a float64 without loss or overflow.
func shortInteger(raw []byte) bool {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// member is a JSON value left undecoded, without a copy.
type member []byte

func (m *member) UnmarshalJSON(b []byte) error {
	*m = b
	return nil
}

// nestedTooDeep reports whether the objects and arrays of the JSON b nest
// deeper than maxDepth, counted as the SDK counts them.
func nestedTooDeep(b []byte) bool {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// trimBounds returns the bounds of b without its leading and trailing
// JSON white space.
func trimBounds(b []byte) (start, end int) {
	end = len(b)
	for start < end && isJSONSpace(b[start]) {
		start++
	}
	for end > start && isJSONSpace(b[end-1]) {
		end--
	}
	return start, end
}

func trimJSONSpace(b []byte) []byte {
	start, end := trimBounds(b)
	return b[start:end]
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// The top-level members a memberScan picks out, and how much of each it
// keeps.
var (
	memberNames = [...]string{"jsonrpc", "id", "method", "error"}
	memberCaps  = [...]int{64, 256, 1 << 10, 4 << 10}
)

const (
	memberID     = 1
	memberMethod = 2
)

// memberScan picks the top-level members "jsonrpc", "id", "method" and
// "error" out of a JSON object as its bytes go by, without holding the
// object, and measures its nesting. It reads even a message too large to
// read whole (its id, to answer it) and lets checkMessage check a message
// in one pass. It does not check the syntax.
type memberScan struct {
	top        byte // the first byte of the value: '{' for an object
	begun      bool // a byte other than white space was seen (top is set)
	depth      int
	deepest    int
	inStr, esc bool
	wantKey    bool   // at depth 1, the next string is a key
	readingKey bool   // a top-level key is being read into key
	key        []byte // the last top-level key, up to 8 bytes
	longKey    bool   // the last top-level key is longer than 8 bytes
	escKey     bool   // the last top-level key has an escape in it
	cur        int    // the index of the member being read, or -1
	vals       [len(memberNames)][]byte
	seen       [len(memberNames)]bool
	long       [len(memberNames)]bool // the value is longer than its cap
	unsure     bool                   // a value was too long, or a key escaped
	dup        bool                   // one of the members comes twice
}

func newMemberScan() *memberScan {
	s := &memberScan{}
	s.reset()
	return s
}

// reset readies s for another value, keeping its buffers.
func (s *memberScan) reset() {
	vals, key := s.vals, s.key
	*s = memberScan{cur: -1, key: key[:0]}
	for k := range vals {
		s.vals[k] = vals[k][:0]
	}
}

func (s *memberScan) feed(p []byte) {
	for _, c := range p {
		if s.inStr {
			end := !s.esc && c == '"'
			switch {
			case s.readingKey && !end:
				if c == '\\' {
					s.escKey = true
				}
				if len(s.key) < 8 {
					s.key = append(s.key, c)
				} else {
					s.longKey = true
				}
			case s.cur >= 0:
				s.add(c)
			}
			s.esc = !s.esc && c == '\\'
			if end {
				s.inStr, s.readingKey = false, false
			}
			continue
		}
		if isJSONSpace(c) {
			continue
		}
		if !s.begun {
			s.top, s.begun = c, true
		}
		if s.top != '{' {
			return // not an object: nothing to find
		}
		switch c {
		case '"':
			s.inStr = true
			if s.depth == 1 && s.wantKey {
				s.readingKey, s.key, s.longKey, s.escKey = true, s.key[:0], false, false
			} else if s.cur >= 0 {
				s.add(c)
			}
		case '{', '[':
			if s.cur >= 0 {
				s.add(c)
			}
			s.depth++
			s.deepest = max(s.deepest, s.depth)
			if s.depth == 1 {
				s.wantKey = true
			}
		case '}', ']':
			s.depth--
			switch {
			case s.depth <= 0:
				s.cur = -1
			case s.cur >= 0:
				s.add(c)
			}
		case ':':
			switch {
			case s.depth == 1:
				s.wantKey, s.cur = false, -1
				if s.escKey {
					s.unsure = true
					break
				}
				if k := slices.Index(memberNames[:], string(s.key)); k >= 0 && !s.longKey {
					s.dup = s.dup || s.seen[k]
					s.cur, s.vals[k], s.seen[k], s.long[k] = k, s.vals[k][:0], true, false
				}
			case s.cur >= 0:
				s.add(c)
			}
		case ',':
			switch {
			case s.depth == 1:
				s.cur, s.wantKey = -1, true
			case s.cur >= 0:
				s.add(c)
			}
		default:
			if s.cur >= 0 {
				s.add(c)
			}
		}
	}
}

func (s *memberScan) add(c byte) {
	if len(s.vals[s.cur]) < memberCaps[s.cur] {
		s.vals[s.cur] = append(s.vals[s.cur], c)
	} else {
		s.long[s.cur], s.unsure = true, true
	}
}

// method reports whether the object has a top-level "method" member.
func (s *memberScan) method() bool { return s.seen[memberMethod] }

// id returns the top-level "id" member's value if it is a JSON string or
// number, else nil.
func (s *memberScan) id() json.RawMessage {
	raw := s.vals[memberID]
	if !s.seen[memberID] || s.long[memberID] || len(raw) == 0 || !jsondata.Valid(raw) {
		return nil
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return append(json.RawMessage(nil), raw...)
	}
	return nil
}

// ErrorResponse returns the line of a JSON-RPC error response to the
// request with the given id (null when id is nil).
func ErrorResponse(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return append(b, '\n')
}

// SizeText says how large n bytes is, for messages about a limit:
// "64 MiB", "20.5 MiB (21495808 bytes)", "300 bytes".
func SizeText(n int64) string {
	const kib, mib = 1 << 10, 1 << 20
	switch {
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n >= mib:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/mib, n)
	case n >= kib && n%kib == 0:
		return fmt.Sprintf("%d KiB", n/kib)
	case n >= kib:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/kib, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// rawID is id without the copy: the top-level "id" member's value if it
// is a JSON string or number, else nil. It points into s's buffer.
func (s *memberScan) rawID() []byte {
	raw := s.vals[memberID]
	if !s.seen[memberID] || s.long[memberID] || len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return raw
	}
	return nil
}

// methodName returns the string the JSON string raw holds (a message's
// method, which checkMessage found to be a string); the usual methods
// without an allocation.
func methodName(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	switch string(inner) {
	case "tools/call":
		return "tools/call"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case NotifyProgress:
		return NotifyProgress
	case NotifyLog:
		return NotifyLog
	}
	if slices.ContainsFunc(inner, func(c byte) bool { return c == '\\' || c >= 0x80 }) {
		// Escapes, or bytes that may not be UTF-8: as a decoder reads
		// them.
		var m string
		if json.Unmarshal(raw, &m) != nil {
			return ""
		}
		return m
	}
	return string(inner)
}

// EachMember calls fn with the key and the value of each member of the
// JSON object obj, in order and as raw JSON (the key with its quotes,
// escapes left as they are), until fn returns false. It reports whether
// it walked every member: false when fn stopped it, or obj is not an
// object. obj must be valid JSON, as every message a FrameReader passes
// on is; on bytes that are not, it stops without a panic.
func EachMember(obj []byte, fn func(key, value []byte) bool) bool {
	i := jsondata.SpaceEnd(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for first := true; ; first = false {
		i = jsondata.SpaceEnd(obj, i)
		if i >= len(obj) {
			return false
		}
		if obj[i] == '}' {
			return true
		}
		if !first {
			if obj[i] != ',' {
				return false
			}
			i = jsondata.SpaceEnd(obj, i+1)
		}
		ks := i
		i = jsondata.ValueEnd(obj, i)
		key := obj[ks:i]
		if len(key) < 2 || key[0] != '"' {
			return false
		}
		i = jsondata.SpaceEnd(obj, i)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = jsondata.SpaceEnd(obj, i+1)
		vs := i
		i = jsondata.ValueEnd(obj, i)
		if i == vs || !fn(key, obj[vs:i]) {
			return false
		}
	}
}

// KeyIs reports whether the raw JSON string key (as EachMember gives it)
// is name, escapes read as a decoder reads them.
func KeyIs(key []byte, name string) bool {
	return len(key) >= 2 && jsondata.KeyIs(key[1:len(key)-1], name)
}
