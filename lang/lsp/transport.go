package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The limits of the framing. A header line longer than maxHeaderLine, more
// than maxHeaderLines header lines or a body longer than maxBody cannot be
// a client's message; they end the session like any other broken frame.
const (
	maxHeaderLine  = 4 << 10
	maxHeaderLines = 32
	maxBody        = 256 << 20
)

// FrameError is a broken frame of the LSP base protocol: a header that
// cannot be read, a Content-Length that is not a byte count, or a stream
// that ends inside a frame. The stream cannot be resynchronised after one,
// so Serve ends and returns it.
type FrameError struct {
	Offset int64  // byte offset in the input where the broken frame starts
	Reason string // what was wrong
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("broken message frame at input byte %d: %s; the stream cannot be resynchronised", e.Offset, e.Reason)
}

// errStreamClosed is what Read returns once the server closed the stream
// itself (after exit, or when its context ended): a clean end.
var errStreamClosed = errors.New("the stream was closed")

// frameStream is the LSP base protocol (Content-Length framed JSON-RPC) as
// a jsonrpc2.Stream. Unlike the library's stream it tells a broken frame,
// which ends the session, from a malformed message in a well-framed body,
// which it answers on its own with a JSON-RPC error (a parse error for a
// body that is not JSON, an invalid-request error for JSON that is not a
// JSON-RPC message), logs, and reads past.
type frameStream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	log *log.Logger
	off int64 // bytes read so far; only Read touches it

	wmu    sync.Mutex // the conn serialises its own writes; Read writes too
	closed atomic.Bool
	end    atomic.Pointer[error] // why reading stopped, when it was not a clean end
}

func newFrameStream(rwc io.ReadWriteCloser, logger *log.Logger) *frameStream {
	return &frameStream{rwc: rwc, in: bufio.NewReaderSize(rwc, maxHeaderLine), log: logger}
}

// Read returns the next well-formed message. It answers and skips
// malformed ones; it returns io.EOF when the input ends between frames, a
// *FrameError when it ends inside one or a frame is broken.
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if s.closed.Load() {
			return nil, 0, errStreamClosed
		}
		start := s.off
		body, err := s.readFrame()
		if err != nil {
			if s.closed.Load() {
				return nil, 0, errStreamClosed
			}
			if !errors.Is(err, io.EOF) {
				s.end.Store(&err)
			}
			return nil, s.off - start, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, s.off - start, nil
		}
		if err := s.reject(body, start); err != nil {
			s.end.Store(&err)
			return nil, s.off - start, err
		}
	}
}

// readFrame reads one frame's headers and body.
func (s *frameStream) readFrame() ([]byte, error) {
	start := s.off
	broken := func(format string, args ...any) error {
		return &FrameError{Offset: start, Reason: fmt.Sprintf(format, args...)}
	}
	length := int64(-1)
	for n := 0; ; n++ {
		line, err := s.in.ReadSlice('\n')
		s.off += int64(len(line))
		switch {
		case err == io.EOF && s.off == start:
			return nil, io.EOF
		case err == io.EOF && len(line) == 0:
			return nil, broken("the input ended inside the header, before the blank line that ends it")
		case err == io.EOF:
			return nil, broken("the input ended inside the header line %q", clip(line))
		case err == bufio.ErrBufferFull:
			return nil, broken("a header line longer than %d bytes", maxHeaderLine)
		case err != nil:
			return nil, fmt.Errorf("reading a message header: %w", err)
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		if text == "" {
			if n == 0 {
				// Blank lines between frames are tolerated.
				start = s.off
				n = -1
				continue
			}
			break
		}
		if n >= maxHeaderLines {
			return nil, broken("more than %d header lines", maxHeaderLines)
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok || !isToken(name) {
			return nil, broken("%q is not a header line (want Name: value, as in Content-Length: 42)", clip(line))
		}
		if !strings.EqualFold(name, jsonrpc2.HdrContentLength) {
			continue // Content-Type and any other header are ignored
		}
		value = strings.TrimSpace(value)
		v, err := strconv.ParseUint(value, 10, 63)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange):
			return nil, broken("Content-Length %s is too large", value)
		case err != nil:
			return nil, broken("Content-Length %q is not a byte count", value)
		case v > maxBody:
			return nil, broken("Content-Length %d is larger than the %d MiB a message may have", v, maxBody>>20)
		case length >= 0 && int64(v) != length:
			return nil, broken("two Content-Length headers, %d and %d", length, v)
		}
		length = int64(v)
	}
	if length < 0 {
		return nil, broken("a header without Content-Length")
	}
	// Read what arrives rather than allocate what the header claims.
	var body bytes.Buffer
	n, err := io.CopyN(&body, s.in, length)
	s.off += n
	if err == io.EOF {
		return nil, broken("the input ended after %d of the %d body bytes that Content-Length announced", n, length)
	}
	if err != nil {
		return nil, fmt.Errorf("reading a message body: %w", err)
	}
	return body.Bytes(), nil
}

// reject answers a malformed message with a JSON-RPC error and logs it,
// on standard error and to the client (window/logMessage).
func (s *frameStream) reject(body []byte, at int64) error {
	var code jsonrpc2.Code
	var reason string
	id := json.RawMessage("null")
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if err := json.Unmarshal(body, &probe); err != nil && !json.Valid(body) {
		code, reason = jsonrpc2.ParseError, fmt.Sprintf("parse error: the message is not JSON (%v)", err)
	} else {
		code, reason = jsonrpc2.InvalidRequest, "invalid request: "+notRequest(body)
		// A request whose id can be read is answered under that id, so
		// the client does not wait for the reply forever.
		if probe.Method != nil && isID(probe.ID) {
			id = probe.ID
		}
	}
	s.log.Printf("malformed message at input byte %d (%d bytes, %q): %s; answered with error %d", at, len(body), clip(body), reason, code)
	reply, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{jsonrpc2.Version, id, &jsonrpc2.Error{Code: code, Message: reason}})
	if err != nil {
		return err
	}
	if err := s.writeRaw(reply); err != nil {
		return err
	}
	note, err := jsonrpc2.NewNotification(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{
		Type:    protocol.MessageTypeError,
		Message: fmt.Sprintf("reelier lsp: malformed message (%d bytes) answered with error %d: %s", len(body), code, reason),
	})
	if err != nil {
		return err
	}
	_, err = s.Write(context.Background(), note)
	return err
}

// notRequest says why a JSON body is not a JSON-RPC request.
func notRequest(body []byte) string {
	switch bytes.TrimLeft(body, " \t\r\n")[0] {
	case '[':
		return "a JSON array (a batch); the Language Server Protocol sends one message per frame"
	case '{':
	default:
		return "expected a JSON object"
	}
	_, err := jsonrpc2.DecodeMessage(body)
	if errors.Is(err, jsonrpc2.ErrInvalidRequest) {
		return "an object with neither a method nor an id"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "unmarshaling jsonrpc message: ")
	return "not a JSON-RPC 2.0 message: " + msg
}

// isID reports whether raw is a JSON-RPC id: a string or an integer.
func isID(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true
	}
	var n int64
	return json.Unmarshal(raw, &n) == nil && !bytes.Equal(raw, []byte("null"))
}

// Write sends one message with its Content-Length header.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var data []byte
	var err error
	if m, ok := msg.(json.Marshaler); ok {
		data, err = m.MarshalJSON()
	} else {
		data, err = json.Marshal(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("marshaling a message: %w", err)
	}
	return int64(len(data)), s.writeRaw(data)
}

func (s *frameStream) writeRaw(data []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := fmt.Fprintf(s.rwc, "%s: %d\r\n\r\n", jsonrpc2.HdrContentLength, len(data)); err != nil {
		return err
	}
	_, err := s.rwc.Write(data)
	return err
}

// Close closes the connection; a Read it unblocks ends cleanly.
func (s *frameStream) Close() error {
	s.closed.Store(true)
	return s.rwc.Close()
}

// err returns why reading stopped, or nil when the input ended between
// frames or the server closed the stream.
func (s *frameStream) err() error {
	if p := s.end.Load(); p != nil {
		return *p
	}
	return nil
}

// isToken reports whether name is an HTTP header name (RFC 9110 token).
func isToken(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// clip shortens b for a log line.
func clip(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
