package mcpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// frameRun reads all of in through a FrameReader with the given limit, a
// byte at a time when slow, and returns what was passed on and the lines
// rejected (each replaced by a marker line naming its place).
func frameRun(t *testing.T, in string, limit int, slow bool) (string, []*RejectedLine) {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if slow {
		r = iotest.OneByteReader(r)
	}
	var rejected []*RejectedLine
	fr := NewFrameReader(r, limit, func(l *RejectedLine) []byte {
		cp := *l
		cp.Line = append([]byte(nil), l.Line...)
		rejected = append(rejected, &cp)
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"rejected","params":{"n":%d}}`, len(rejected)))
	})
	out, err := io.ReadAll(fr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), rejected
}

const (
	req  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`
	note = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	resp = `{"jsonrpc":"2.0","id":"a","result":{}}`
)

func marker(n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"rejected","params":{"n":%d}}`, n) + "\n"
}

// TestFrameReaderPasses: messages pass on one a line, trimmed; blank lines
// go; everything else is handed to reject and replaced by what it returns.
func TestFrameReaderPasses(t *testing.T) {
	tests := []struct {
		name, in, want string
		errs           []string // each rejected line's Err ("" for too large)
	}{
		{"messages", req + "\n" + note + "\r\n" + resp + "\n", req + "\n" + note + "\n" + resp + "\n", nil},
		{"white space and blank lines", "\n  \t" + req + " \r\n\r\n\n" + resp, req + "\n" + resp + "\n", nil},
		{"batch", "[" + req + "," + note + "]\n", "[" + req + "," + note + "]\n", nil},
		{"not JSON", "hello from print()\n" + req + "\n", marker(1) + req + "\n", []string{"not JSON"}},
		{"two values on a line", req + " " + req + "\n", marker(1), []string{"not JSON"}},
		{"truncated", req[:20] + "\n" + resp + "\n", marker(1) + resp + "\n", []string{"not JSON"}},
		{"JSON, not JSON-RPC", `{"debug":true}` + "\n" + `"text"` + "\n" + "[]\n", marker(1) + marker(2) + marker(3),
			[]string{`invalid message version tag ""; expected "2.0"`, "JSON that is not an object", "an empty batch"}},
		{"bad id", `{"jsonrpc":"2.0","id":{"x":1},"method":"m"}` + "\n", marker(1), []string{"invalid ID type"}},
		{"bad batch member", "[" + req + `,{"id":1}]` + "\n", marker(1), []string{"in a batch"}},
		{"last line unterminated", resp + "\n" + "oops", resp + "\n" + marker(1), []string{"not JSON"}},
	}
	for _, tt := range tests {
		for _, slow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slow=%v", tt.name, slow), func(t *testing.T) {
				got, rejected := frameRun(t, tt.in, 1<<10, slow)
				if got != tt.want {
					t.Errorf("passed on\n%q\nwant\n%q", got, tt.want)
				}
				if len(rejected) != len(tt.errs) {
					t.Fatalf("%d lines rejected; want %d", len(rejected), len(tt.errs))
				}
				for k, l := range rejected {
					if l.Err == nil || !strings.Contains(l.Err.Error(), tt.errs[k]) {
						t.Errorf("rejected line %d: Err %v; want it to say %q", k+1, l.Err, tt.errs[k])
					}
				}
				// Whatever passed on, the SDK reads it: one message a line.
				for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
					if line == "" || line[0] == '[' {
						continue
					}
					if _, err := jsonrpc.DecodeMessage([]byte(line)); err != nil {
						t.Errorf("passed on %q, which the SDK does not read: %v", line, err)
					}
				}
			})
		}
	}
}

// TestFrameReaderIDs: a rejected line's top-level id and method are read,
// and only those: not a member of the params, not text in a string.
func TestFrameReaderIDs(t *testing.T) {
	tests := []struct {
		line   string
		id     string // "" for none
		method bool
	}{
		{`{"jsonrpc":"1.0","id":7,"result":{}}`, "7", false},
		{`{"jsonrpc":"1.0","result":{"id":5,"x":[{"id":6}]},"id":"r-1"}`, `"r-1"`, false},
		{`{"jsonrpc":"1.0", "id" : -2.5e3 , "method":"m"}`, "-2.5e3", true},
		{`{"jsonrpc":"1.0","id":"a\"b\\","method":"m"}`, `"a\"b\\"`, true},
		{`{"jsonrpc":"1.0","params":{"id":5},"method":"m"}`, "", true},
		{`{"jsonrpc":"1.0","note":"\"id\":5, \"method\":1"}`, "", false},
		{`{"jsonrpc":"1.0","id":null,"method":"m"}`, "", true},
		{`{"jsonrpc":"1.0","id":[1],"method":"m"}`, "", true},
		{`{"jsonrpc":"1.0","identity":1,"methods":2}`, "", false},
		{`{"jsonrpc":"1.0","id":1,"id":2}`, "2", false},
		{`[{"jsonrpc":"1.0","id":1}]`, "", false},
	}
	for _, tt := range tests {
		_, rejected := frameRun(t, tt.line+"\n", 1<<10, false)
		if len(rejected) != 1 {
			t.Fatalf("%s: %d lines rejected; want 1", tt.line, len(rejected))
		}
		if l := rejected[0]; string(l.ID) != tt.id || l.Method != tt.method {
			t.Errorf("%s: id %s, method %v; want %s, %v", tt.line, l.ID, l.Method, tt.id, tt.method)
		}
	}
}

// TestFrameReaderTooLarge: a line over the limit is rejected without
// being held whole; its size (line break not counted), its first bytes
// and its id — even at its very end — are reported, and the lines around
// it pass.
func TestFrameReaderTooLarge(t *testing.T) {
	const limit = 100 << 10 // over the reader's 64 KiB buffer
	body := strings.Repeat("x", 3*limit)
	tests := []struct {
		name, line string
		id         string
		method     bool
	}{
		{"response, id last", `{"jsonrpc":"2.0","result":{"text":"` + body + `"},"id":42}`, "42", false},
		{"request, id first", `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"text":"` + body + `"}}`, `"q"`, true},
		{"not JSON", body, "", false},
		{"just over", `{"jsonrpc":"2.0","id":1,"result":{"t":"` + body[:limit-41] + `"}}`, "1", false},
	}
	for _, tt := range tests {
		for _, eol := range []string{"\n", "\r\n"} {
			t.Run(fmt.Sprintf("%s/%q", tt.name, eol), func(t *testing.T) {
				in := req + "\n" + tt.line + eol + resp + "\n"
				got, rejected := frameRun(t, in, limit, false)
				if want := req + "\n" + marker(1) + resp + "\n"; got != want {
					t.Errorf("passed on %.200q; want %q", got, want)
				}
				if len(rejected) != 1 {
					t.Fatalf("%d lines rejected; want 1", len(rejected))
				}
				l := rejected[0]
				if !l.TooLarge || l.Err != nil || l.Size != int64(len(tt.line)) {
					t.Errorf("TooLarge %v, Err %v, Size %d; want true, nil, %d", l.TooLarge, l.Err, l.Size, len(tt.line))
				}
				if string(l.ID) != tt.id || l.Method != tt.method {
					t.Errorf("id %s, method %v; want %s, %v", l.ID, l.Method, tt.id, tt.method)
				}
				if len(l.Line) != headSize || !strings.HasPrefix(tt.line, string(l.Line)) {
					t.Errorf("Line %.40q… (%d bytes); want the line's first %d bytes", l.Line, len(l.Line), headSize)
				}
			})
		}
	}
	// At the limit exactly, a message passes.
	line := `{"jsonrpc":"2.0","id":1,"result":{"t":"` + body[:limit-42] + `"}}`
	if len(line) != limit {
		t.Fatalf("test line is %d bytes; want %d", len(line), limit)
	}
	if got, rejected := frameRun(t, line+"\r\n", limit, false); got != line+"\n" || len(rejected) != 0 {
		t.Errorf("a message of exactly the limit: %d rejected", len(rejected))
	}
}

// TestFrameReaderEOF: the source's end (or error) comes after the last
// line is passed on; nil from reject passes nothing on.
func TestFrameReaderEOF(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("junk\n"+req), iotest.ErrReader(boom))
	fr := NewFrameReader(r, 0, func(*RejectedLine) []byte { return nil })
	got, err := io.ReadAll(fr)
	if string(got) != req+"\n" || !errors.Is(err, boom) {
		t.Errorf("read %q, %v; want the request, then %v", got, err, boom)
	}
}

// TestErrorResponse: the lines the proxy answers with are JSON-RPC error
// responses, with the id given or null.
func TestErrorResponse(t *testing.T) {
	line := ErrorResponse(json.RawMessage(`"r-1"`), jsonrpc.CodeInvalidRequest, "too <large>")
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID.Raw() != "r-1" || resp.Error == nil || !strings.Contains(resp.Error.Error(), "too <large>") {
		t.Errorf("%s decodes as %#v", line, msg)
	}
	if got, want := string(ErrorResponse(nil, jsonrpc.CodeParseError, "parse error")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`+"\n"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{
		64 << 20:         "64 MiB",
		20<<20 + 300:     "20.0 MiB (20971820 bytes)",
		1 << 10:          "1 KiB",
		1536:             "1.5 KiB (1536 bytes)",
		300:              "300 bytes",
		int64(3<<20) / 2: "1.5 MiB (1572864 bytes)",
		4 << 30:          "4096 MiB",
	} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q; want %q", n, got, want)
		}
	}
}

// BenchmarkFrameReader is the cost the FrameReader adds to each message
// of a typical size: the copy and the checks.
func BenchmarkFrameReader(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping"},"_meta":{"progressToken":3}}}` + "\n")
	src := &repeatReader{line: line}
	fr := NewFrameReader(src, 0, nil)
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if n, err := fr.Read(buf); err != nil || n != len(line) {
			b.Fatal(n, err)
		}
	}
}

// repeatReader reads the same line forever.
type repeatReader struct{ line []byte }

func (r *repeatReader) Read(p []byte) (int, error) { return copy(p, r.line), nil }

// sdkReads reports whether the SDK's stdio transport reads line as a
// message or a batch: its decoder's syntax check, then what its readBatch
// does.
func sdkReads(line []byte) bool {
	if !json.Valid(line) {
		return false
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) == nil {
		if len(batch) == 0 || nestedTooDeep(line) {
			return false
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return false
			}
		}
		return true
	}
	_, err := jsonrpc.DecodeMessage(line)
	return err == nil
}

var checkSeeds = []string{
	req, note, resp, "[" + req + "," + resp + "]", "[]", "[1]", `"x"`, "12", "null", "{}",
	`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":null}`, `{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`, `{"jsonrpc":"2.0","method":5}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`, `{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":2,"id":1,"result":{}}`, `{"jsonrpc":"2.0","ID":1,"result":{}}`, `{"JSONRPC":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":null}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m","data":[1]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, `{"jsonrpc":"2.0","id":1,"error":"bad"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`, `{"jsonrpc":"2.0","id":1,"method":"m","error":"ignored"}`,
	`{"jsonrpc":"2.0","id":"a","id":{"x":1},"method":"m"}`, `{"jsonrpc":"2.\u0030","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
	`{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"m"}`, "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
	// Escaped keys and long members take the slow path.
	`{"jsonrpc":"2.0","\u0069d":1,"result":{}}`, `{"jsonrpc":"2.0","\u0069d":[1],"method":"m"}`, `{"json\u0072pc":"1.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","method":"` + strings.Repeat("m", 2000) + `"}`, `{"jsonrpc":"2.0","method":[` + strings.Repeat("1,", 2000) + `1]}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"` + strings.Repeat("e", 5000) + `"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"` + strings.Repeat("e", 5000) + `"}}`,
	`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 300) + `","result":{}}`,
	`{"jsonrpc" : "2.0" , "id" : [ 1 , 2 ] , "method" : "m" }`, `{"jsonrpc":"2.0","id":1,"result":{"id":{},"method":[]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","x":"\"id\":{}"}`, `{"jsonrpc":"2.0","id":1,"id":"2","result":{}}`,
}

// TestCheckMessageAgreesWithSDK: the FrameReader's check accepts exactly
// the lines the SDK reads.
func TestCheckMessageAgreesWithSDK(t *testing.T) {
	for _, line := range checkSeeds {
		err := checkMessage([]byte(line), newMemberScan())
		if sdk := sdkReads([]byte(line)); (err == nil) != sdk {
			t.Errorf("%.80s: check says %v; the SDK reads it: %v", line, err, sdk)
		}
	}
}

// FuzzCheckMessage: what the check accepts, the SDK reads; so nothing the
// FrameReader passes on can end the SDK's connection.
func FuzzCheckMessage(f *testing.F) {
	for _, s := range checkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = trimJSONSpace(line)
		if len(line) == 0 {
			return
		}
		if checkMessage(line, newMemberScan()) == nil && !sdkReads(line) {
			t.Errorf("check accepts %q, which the SDK does not read", line)
		}
	})
}

// FuzzFrameReader: whatever the stream, every line the reader passes on
// is one the SDK reads, and every non-blank line of the input is either
// passed on or rejected.
func FuzzFrameReader(f *testing.F) {
	for _, s := range checkSeeds {
		f.Add([]byte(s+"\n"+s), uint8(40))
	}
	f.Add([]byte(strings.Repeat(" ", 300)+"\n"+req), uint8(40))
	f.Add([]byte(" \n\r\n"+req+"\r\n{\"jsonrpc\":\"2.0\",\"result\":"+strings.Repeat("1", 90)+",\"id\":3}\nx"), uint8(64))
	f.Fuzz(func(t *testing.T, in []byte, limit uint8) {
		rejected := 0
		fr := NewFrameReader(bytes.NewReader(in), int(limit)+1, func(l *RejectedLine) []byte {
			rejected++
			if l.TooLarge != (l.Err == nil) || l.Size <= 0 || len(l.Line) > headSize {
				t.Errorf("rejected line %+v", l)
			}
			return nil
		})
		// Divert sees each message before it is passed on, as it is;
		// the tools/calls with an id are taken.
		diverted, done := 0, 0
		fr.Divert = func(f *Frame) bool {
			var m map[string]json.RawMessage // exact names, the last of two
			if err := json.Unmarshal(f.Line, &m); err != nil || !sdkReads(f.Line) {
				t.Errorf("diverting %q: %v", f.Line, err)
				return false
			}
			wantID := m["id"]
			if len(wantID) == 0 || wantID[0] != '"' && wantID[0] != '-' && (wantID[0] < '0' || wantID[0] > '9') {
				wantID = nil
			}
			var method string
			json.Unmarshal(m["method"], &method)
			if method != f.Method || !bytes.Equal(compactJSON(wantID), compactJSON(f.ID)) {
				t.Errorf("frame of %q: id %q, method %q", f.Line, f.ID, f.Method)
			}
			if f.Method == "tools/call" && f.ID != nil {
				diverted++
				return true
			}
			return false
		}
		fr.Done = func(error) { done++ }
		out, err := io.ReadAll(fr)
		if err != nil {
			t.Fatal(err)
		}
		if done != 1 {
			t.Errorf("Done called %d times", done)
		}
		passed := 0
		for _, line := range bytes.SplitAfter(out, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			passed++
			if line[len(line)-1] != '\n' || !sdkReads(line[:len(line)-1]) || len(line)-1 > int(limit)+1 {
				t.Errorf("passed on %q", line)
			}
		}
		lines := 0
		for _, line := range bytes.Split(in, []byte("\n")) {
			if len(trimJSONSpace(line)) > 0 {
				lines++
			}
		}
		if passed+rejected+diverted != lines {
			t.Errorf("%d lines in, %d passed on, %d rejected and %d diverted", lines, passed, rejected, diverted)
		}
	})
}

// compactJSON returns b without white space outside strings, nil for nil.
func compactJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}
