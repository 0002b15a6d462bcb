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

// FuzzBoundedBody: whatever the body and however it is cut into reads,
// a bounded body passes on a prefix of it — all of it when no message is
// over the limit — ending only at a message's end when it fails, and
// holds nothing after it is done.
func FuzzBoundedBody(f *testing.F) {
	f.Add([]byte("data: 1\n\ndata: 22\r\n\r\n"), true, uint8(8), uint8(3))
	f.Add([]byte(`{"a":1}`), false, uint8(4), uint8(1))
	f.Add([]byte("data: 1\r\rdata: 2\r\n\n"), true, uint8(6), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, sse bool, limit, step uint8) {
		max := int(limit) + 1
		r := io.Reader(bytes.NewReader(body))
		if step%2 == 1 {
			r = iotest.OneByteReader(r)
		}
		b := &boundedBody{ReadCloser: io.NopCloser(r), sse: sse, left: max, max: max, server: "s"}
		var got bytes.Buffer
		_, err := io.Copy(&got, b)
		if !bytes.HasPrefix(body, got.Bytes()) {
			t.Fatalf("passed on %q, not a prefix of %q", got.Bytes(), body)
		}
		var tl *TooLargeError
		switch {
		case err == nil && got.Len() != len(body):
			t.Fatalf("no error, but %d of %d bytes", got.Len(), len(body))
		case err != nil && !errors.As(err, &tl):
			t.Fatalf("error %v", err)
		case err != nil && !sse && got.Len() != 0:
			t.Fatalf("a JSON body over the limit passed on %d bytes", got.Len())
		case err != nil && sse && got.Len() > 0 && !bytes.HasSuffix(got.Bytes(), []byte("\n")) && !bytes.HasSuffix(got.Bytes(), []byte("\r")):
			t.Fatalf("failed after passing on a cut event: %q", got.Bytes())
		}
		if err == nil && !sse && len(body) > max {
			t.Fatalf("a %d-byte JSON body passed a %d limit", len(body), max)
		}
		if b.heldN != 0 {
			t.Fatalf("%d bytes held at the end", b.heldN)
		}
	})
}
