package mcpx

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// httpTap is the tap of a remote server reached over streamable HTTP. It
// reads the JSON-RPC messages off the HTTP exchanges — the calls in the
// bodies of POST requests, the responses in JSON bodies and SSE events —
// instead of wrapping the SDK's connection as tapTransport does: the
// SDK's streamable client connection learns of the session through a
// method of its own that no wrapper can pass on, and without it the
// client never opens the standalone GET stream (so requests and
// notifications a server sends outside a call never arrive) nor sends
// MCP-Protocol-Version after the handshake. It only reads; every body
// reaches the SDK unchanged.
type httpTap struct {
	base http.RoundTripper
	tap  *tapConn
	max  int // the most bytes of one message it reads; a larger one is not captured
}

func (h *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			data, err := io.ReadAll(io.LimitReader(body, int64(h.max)+1))
			body.Close()
			if err == nil && len(data) <= h.max {
				if msg, err := jsonrpc.DecodeMessage(data); err == nil {
					h.tap.sent(req.Context(), msg)
				}
			}
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		resp.Body = &bodyTap{ReadCloser: resp.Body, feed: &jsonFeed{tap: h.tap, max: h.max}}
	case "text/event-stream":
		resp.Body = &bodyTap{ReadCloser: resp.Body, feed: &sseFeed{tap: h.tap, max: h.max}}
	}
	return resp, nil
}

// feed takes the bytes of a response body as they are read, and its end.
type feed interface {
	write(p []byte)
	end()
}

// bodyTap passes a response body on, feeding what is read to a feed.
type bodyTap struct {
	io.ReadCloser
	feed  feed
	ended bool
}

func (b *bodyTap) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.feed.write(p[:n])
	if err == io.EOF && !b.ended {
		b.ended = true
		b.feed.end()
	}
	return n, err
}

// jsonFeed reads a JSON body: one message, decoded at its end.
type jsonFeed struct {
	tap  *tapConn
	max  int
	data []byte
	over bool
}

func (f *jsonFeed) write(p []byte) {
	if f.over {
		return
	}
	if len(f.data)+len(p) > f.max {
		f.over, f.data = true, nil
		return
	}
	f.data = append(f.data, p...)
}

func (f *jsonFeed) end() {
	if !f.over {
		if msg, err := jsonrpc.DecodeMessage(f.data); err == nil {
			f.tap.received(msg)
		}
	}
}

// sseFeed reads a stream of server-sent events: each event's data lines,
// joined with newlines, are one message. Lines end with LF, CRLF or CR;
// an empty line ends an event.
type sseFeed struct {
	tap     *tapConn
	max     int
	line    []byte
	data    bytes.Buffer
	hasData bool
	over    bool // this event is over max: skipped
	cr      bool // the last byte was a CR, so an LF right after it ends nothing
}

func (f *sseFeed) write(p []byte) {
	for _, c := range p {
		switch {
		case c == '\n' && f.cr:
			f.cr = false
		case c == '\n' || c == '\r':
			f.cr = c == '\r'
			f.endLine()
		default:
			f.cr = false
			if len(f.line) < f.max {
				f.line = append(f.line, c)
			} else {
				f.over = true
			}
		}
	}
}

func (f *sseFeed) endLine() {
	line := f.line
	f.line = f.line[:0]
	if len(line) == 0 {
		if f.hasData && !f.over {
			if msg, err := jsonrpc.DecodeMessage(f.data.Bytes()); err == nil {
				f.tap.received(msg)
			}
		}
		f.data.Reset()
		f.hasData, f.over = false, false
		return
	}
	value, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return // another field (event, id, retry) or a comment
	}
	value, _ = bytes.CutPrefix(value, []byte(" "))
	if f.hasData {
		f.data.WriteByte('\n')
	}
	f.hasData = true
	if f.data.Len()+len(value) > f.max {
		f.over = true
		return
	}
	f.data.Write(value)
}

// end drops an event the stream ended in the middle of, as SSE does.
func (f *sseFeed) end() {}
