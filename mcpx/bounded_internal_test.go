package mcpx

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestBoundedBodyHoldsWholeMessages: a bounded body passes on whole
// messages only — an SSE event once its empty line is read, a JSON body at
// its end — so that an oversized one fails before any of it goes further;
// the bytes it passes on are the body's, unchanged, however the body is cut
// into reads.
func TestBoundedBodyHoldsWholeMessages(t *testing.T) {
	big := strings.Repeat("A", 100)
	tests := []struct {
		name  string
		sse   bool
		max   int
		body  string
		want  string // what is read before the error (all of it if none)
		large bool   // the read ends with a TooLargeError
	}{
		{name: "json under", body: `{"a":1}`, max: 7, want: `{"a":1}`},
		{name: "json over", body: `{"a":12}`, max: 7, want: "", large: true},
		{name: "sse events", sse: true, max: 40, body: "event: message\ndata: {}\n\ndata: {\"b\":2}\n\n", want: "event: message\ndata: {}\n\ndata: {\"b\":2}\n\n"},
		{name: "sse crlf", sse: true, max: 40, body: "data: 1\r\n\r\ndata: 2\r\n\r\n", want: "data: 1\r\n\r\ndata: 2\r\n\r\n"},
		{name: "sse cr", sse: true, max: 40, body: "data: 1\r\rdata: 2\r\r", want: "data: 1\r\rdata: 2\r\r"},
		{name: "sse second event over", sse: true, max: 40, body: "data: 1\n\ndata: " + big + "\n\n", want: "data: 1\n\n", large: true},
		{name: "sse first event over", sse: true, max: 40, body: "data: " + big + "\n\ndata: 1\n\n", want: "", large: true},
		{name: "sse cut event passed on at the end", sse: true, max: 40, body: "data: 1\n\ndata: 2", want: "data: 1\n\ndata: 2"},
		{name: "sse many small events", sse: true, max: 12, body: strings.Repeat("data: 12\n\n", 50), want: strings.Repeat("data: 12\n\n", 50)},
	}
	for _, tc := range tests {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.body)
			if one {
				r = iotest.OneByteReader(r)
			}
			b := &boundedBody{ReadCloser: io.NopCloser(r), sse: tc.sse, left: tc.max, max: tc.max, server: "s"}
			var got bytes.Buffer
			_, err := io.Copy(&got, b)
			var tl *TooLargeError
			if errors.As(err, &tl) != tc.large || (!tc.large && err != nil) {
				t.Errorf("%s (one byte %v): error %v, want too large %v", tc.name, one, err, tc.large)
			}
			if got.String() != tc.want {
				t.Errorf("%s (one byte %v): read %q, want %q", tc.name, one, got.String(), tc.want)
			}
			if tc.large && tl != nil && tl.SSE != tc.sse {
				t.Errorf("%s: SSE %v in the error", tc.name, tl.SSE)
			}
			if b.heldN != 0 && !tc.large {
				t.Errorf("%s: %d bytes still held", tc.name, b.heldN)
			}
		}
	}
}

// TestBoundedBodyEventNotDelayed: on a stream that stays open, an event
// is passed on as soon as its empty line is read — not when the next
// event or the end arrives — including the LF of a CRLF that comes in a
// read of its own.
func TestBoundedBodyEventNotDelayed(t *testing.T) {
	for _, parts := range [][]string{
		{"data: 1\n\n"},
		{"data: 1\r\n", "\r\n"},
		{"data: 1\r\n\r", "\n"},
		{"da", "ta: 1\n", "\n"},
	} {
		pr, pw := io.Pipe()
		b := &boundedBody{ReadCloser: pr, sse: true, left: 100, max: 100, server: "s"}
		want := strings.Join(parts, "")
		go func() {
			for _, p := range parts {
				pw.Write([]byte(p))
			}
			// the stream stays open: no close until the reader has the event
		}()
		buf := make([]byte, 64)
		var got []byte
		for len(got) < len(want) {
			n, err := b.Read(buf)
			if err != nil {
				t.Fatalf("%q: %v", parts, err)
			}
			got = append(got, buf[:n]...)
		}
		if string(got) != want {
			t.Errorf("%q: read %q", parts, got)
		}
		pw.Close()
	}
}

// TestBoundedBodyHoldsOneLimit: an oversized JSON body read to the limit
// is held in chunks of heldChunk, never more than the limit and a chunk.
func TestBoundedBodyHoldsOneLimit(t *testing.T) {
	limit := 1 << 20
	var most int
	b := &boundedBody{ReadCloser: io.NopCloser(io.LimitReader(zeros{}, int64(4*limit))), left: limit, max: limit, server: "s"}
	for b.failed == nil && b.end == nil {
		b.fill()
		held := 0
		for _, c := range b.held {
			held += cap(c)
		}
		most = max(most, held)
	}
	if b.failed == nil {
		t.Fatal("no failure")
	}
	if most > limit+heldChunk*2 {
		t.Errorf("held %d bytes for a %d limit", most, limit)
	}
	if b.heldN != 0 {
		t.Errorf("%d bytes kept after the failure", b.heldN)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
