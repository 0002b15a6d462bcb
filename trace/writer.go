package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/reelier/reelier/redact"
)

// DefaultDir is where the recorder writes traces unless told otherwise.
const DefaultDir = ".reelier/traces"

// TimeFormat is the layout of every timestamp a trace holds: ISO 8601 in
// UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// ObservedProxy is Meta.Observed for a trace the recording proxy wrote.
const ObservedProxy = "proxy"

// ErrClosed is returned by a Writer's methods after Close.
var ErrClosed = errors.New("the trace is closed")

// maxAttempts bounds the search for an unused <name>-<n>.jsonl.
const maxAttempts = 1 << 20

// keepBuffer is the largest encoding buffer a Writer keeps between
// records; a bigger one, grown for a large body, is let go.
const keepBuffer = 256 << 10

// WriterOptions configure Create.
type WriterOptions struct {
	// Dir is the trace directory, created when missing; DefaultDir if empty.
	Dir string
	// Name is the trace's name; the file is <Dir>/<Name>-<n>.jsonl.
	Name string
	// Wrapped lists the downstream servers, in --wrap order.
	Wrapped []string
	// Annotations are the declared tool hints by exposed name.
	Annotations map[string]Annotations
	// Servers describe the downstreams, in --wrap order; their commands
	// are redacted like Wrapped (the caller blanks what only it can
	// recognise, such as environment assignments, first).
	Servers []Server
	// Redactor blanks secrets in arguments, bodies and Wrapped; nil
	// redacts nothing.
	Redactor *redact.Redactor
	// Now is the clock; time.Now if nil.
	Now func() time.Time
}

// Writer appends the records of one recording to its trace file. Every
// method is safe for concurrent use: records are written whole, one at a
// time, with seq increasing in file order, and a call's record always
// precedes its result's. The file is only ever appended to.
type Writer struct {
	path   string
	redact *redact.Redactor
	now    func() time.Time

	mu     sync.Mutex
	f      *os.File
	size   int64
	seq    int
	calls  int
	open   map[int]bool // call indexes still waiting for their result
	buf    bytes.Buffer
	enc    *json.Encoder
	err    error // the first write error
	closed bool
}

// ValidateName checks that name can name a trace file.
func ValidateName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("the trace name is empty")
	case name == "." || name == "..":
		return fmt.Errorf("the trace name %q is not a file name", name)
	case strings.ContainsAny(name, `/\`+"\x00"):
		return fmt.Errorf("the trace name %q must not contain a slash, a backslash or NUL", name)
	case len(name) > 200:
		return fmt.Errorf("the trace name is %d bytes long; at most 200 are allowed", len(name))
	}
	return nil
}

// Create starts a new trace file at <Dir>/<Name>-<n>.jsonl, n being the
// smallest positive number whose file does not exist yet (an existing
// trace is never overwritten), and writes its meta record.
func Create(opts WriterOptions) (*Writer, error) {
	if err := ValidateName(opts.Name); err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		dir = DefaultDir
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the trace directory: %w", err)
	}
	f, path, err := createUnused(dir, opts.Name)
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, redact: opts.Redactor, now: opts.Now, f: f, open: map[int]bool{}}
	if w.now == nil {
		w.now = time.Now
	}
	if w.redact == nil {
		w.redact = &redact.Redactor{}
	}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	wrapped := make([]string, len(opts.Wrapped))
	for i, s := range opts.Wrapped {
		wrapped[i] = w.redact.String("", s)
	}
	meta := &Meta{T: KindMeta, Name: opts.Name, StartedAt: w.stamp(), Wrapped: wrapped, Observed: ObservedProxy}
	if len(opts.Annotations) > 0 {
		meta.ToolAnnotations = opts.Annotations
	}
	for _, sv := range opts.Servers {
		tools := append([]string{}, sv.Tools...)
		var headers []string
		for _, h := range sv.Headers {
			headers = append(headers, w.redact.String("", h))
		}
		var defs []json.RawMessage
		for _, def := range sv.ToolDefs {
			red, err := w.redact.JSONValue(def)
			if err != nil {
				defs = nil // a definition that is not JSON: keep none
				break
			}
			defs = append(defs, red)
		}
		meta.Servers = append(meta.Servers, Server{Name: sv.Name, Command: w.redact.String("", sv.Command), Tools: tools, Headers: headers, ToolDefs: defs})
	}
	w.mu.Lock()
	err = w.write(meta)
	w.mu.Unlock()
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return w, nil
}

// createUnused opens the first <name>-<n>.jsonl that does not exist.
func createUnused(dir, name string) (*os.File, string, error) {
	for n := 1; n <= maxAttempts; n++ {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", name, n))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("creating the trace file: %w", err)
		}
		return f, path, nil
	}
	return nil, "", fmt.Errorf("no unused trace file name for %q in %s", name, dir)
}

// Path returns the trace file's path.
func (w *Writer) Path() string { return w.path }

// Calls returns how many call records were written.
func (w *Writer) Calls() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls
}

// Note appends a note record.
func (w *Writer) Note(text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(&Note{T: KindNote, TS: w.stamp(), Text: text})
}

// Call appends the call record of a tool call and returns its call index
// for Result. args are redacted first; toolUseID may be empty.
func (w *Writer) Call(tool string, args json.RawMessage, toolUseID string) (int, error) {
	red, err := w.redact.JSONValue(args)
	if err != nil {
		return 0, fmt.Errorf("arguments of %q: %w", tool, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	i := w.calls
	if err := w.write(&Call{T: KindCall, I: i, TS: w.stamp(), Tool: tool, Args: red, ToolUseID: toolUseID}); err != nil {
		return 0, err
	}
	w.calls++
	w.open[i] = true
	return i, nil
}

// Result appends the result record of call i: ok is false when the call
// failed, ms its duration, body the result (redacted first).
func (w *Writer) Result(i int, ok bool, ms int64, body json.RawMessage) error {
	return w.ResultWith(i, ok, ms, body, ResultExtras{})
}

// ResultWith is Result with the optional fields of a result record: the
// requests relayed during the call (their params, results and errors
// redacted like the body), the notifications counted, and whether the
// agent cancelled the call.
func (w *Writer) ResultWith(i int, ok bool, ms int64, body json.RawMessage, x ResultExtras) error {
	red, err := w.redact.JSONValue(body)
	if err != nil {
		return fmt.Errorf("result of call %d: %w", i, err)
	}
	var relay []Exchange
	for _, e := range x.Relay {
		params, err := w.redact.JSONValue(e.Params)
		if err != nil {
			return fmt.Errorf("result of call %d: %s params: %w", i, e.Method, err)
		}
		e.Params = params
		if len(e.Result) > 0 {
			if e.Result, err = w.redact.JSONValue(e.Result); err != nil {
				return fmt.Errorf("result of call %d: %s result: %w", i, e.Method, err)
			}
		}
		e.Error = w.redact.String("", e.Error)
		relay = append(relay, e)
	}
	var pol *PolicyDecision
	if x.Policy != nil {
		d := *x.Policy
		d.Rule = w.redact.String("", d.Rule)
		pol = &d
	}
	var notified map[string]int
	if len(x.Notified) > 0 {
		notified = maps.Clone(x.Notified)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if !w.open[i] {
		return fmt.Errorf("call index %d has no call waiting for a result", i)
	}
	if ms < 0 {
		ms = 0
	}
	if err := w.write(&Result{T: KindResult, I: i, OK: ok, MS: ms, Body: red, Relay: relay, Notified: notified, Cancelled: x.Cancelled, Policy: pol}); err != nil {
		return err
	}
	delete(w.open, i)
	return nil
}

// Close ends the trace: later writes fail with ErrClosed. It returns the
// first error any write met, or the error of syncing and closing the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if w.err != nil {
		return w.err
	}
	return err
}

// write encodes rec with the next seq and appends it as one line. A write
// that fails part-way is cut off again, so the file stays valid JSON Lines.
// The caller holds w.mu.
func (w *Writer) write(rec Record) error {
	switch {
	case w.closed:
		return ErrClosed
	case w.err != nil:
		return w.err
	}
	setSeq(rec, w.seq)
	w.buf.Reset()
	if err := w.enc.Encode(rec); err != nil {
		return err
	}
	n, err := w.f.Write(w.buf.Bytes())
	if err != nil {
		if n > 0 {
			w.f.Truncate(w.size)
		}
		w.err = fmt.Errorf("writing %s: %w", w.path, err)
		return w.err
	}
	w.size += int64(n)
	w.seq++
	if w.buf.Cap() > keepBuffer {
		w.buf = bytes.Buffer{}
	}
	return nil
}

func (w *Writer) stamp() string { return w.now().UTC().Format(TimeFormat) }

func setSeq(rec Record, seq int) {
	switch r := rec.(type) {
	case *Meta:
		r.Seq = seq
	case *Note:
		r.Seq = seq
	case *Call:
		r.Seq = seq
	case *Result:
		r.Seq = seq
	}
}

// Encoder writes trace records as JSON Lines, numbering them from 0, for
// a trace written in one go from something other than a live recording
// (an agent's transcript, a replay). The first error stops it; Err
// returns it.
type Encoder struct {
	enc *json.Encoder
	seq int
	err error
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Encoder{enc: enc}
}

// Put writes rec with the next seq.
func (e *Encoder) Put(rec Record) {
	if e.err != nil {
		return
	}
	setSeq(rec, e.seq)
	e.seq++
	e.err = e.enc.Encode(rec)
}

// Err is the first error a Put met, or nil.
func (e *Encoder) Err() error { return e.err }

// Fail stops the encoder with err, unless it already stopped.
func (e *Encoder) Fail(err error) {
	if e.err == nil {
		e.err = err
	}
}
