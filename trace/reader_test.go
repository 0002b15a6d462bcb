package trace_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/trace"
)

const good = `{"t":"meta","seq":0,"name":"weekly","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["caldiy"],"future":1}` + "\r\n" +
	"\n" +
	`{"t":"note","seq":1,"ts":"2026-07-18T14:02:01.100Z","text":"pull bookings"}` + "\n" +
	`{"t":"call","seq":2,"i":0,"ts":"2026-07-18T14:02:01.200Z","tool":"list_bookings","args":{"z":1,"a":2}}` + "\n" +
	`{"t":"result","seq":3,"i":0,"ok":true,"ms":142,"body":{"content":[{"type":"text","text":"{\"n\":1}"},{"type":"image"},{"type":"text","text":"x"}]}}`

func TestReadGood(t *testing.T) {
	tr, err := trace.Read(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Name != "weekly" || len(tr.Records) != 4 || tr.Lines[1] != 3 {
		t.Fatalf("meta %+v, %d records, lines %v", tr.Meta, len(tr.Records), tr.Lines)
	}
	call := tr.Records[2].(*trace.Call)
	if string(call.Args) != `{"z":1,"a":2}` {
		t.Errorf("args %s: key order must survive", call.Args)
	}
	if body := string(tr.Records[3].(*trace.Result).Body); !strings.Contains(body, `"content"`) {
		t.Errorf("result body %s: kept as recorded", body)
	}
}

func TestTruncationMarker(t *testing.T) {
	r := &trace.Result{Body: []byte(`{"__truncated":true,"preview":"{\"a\":","originalLength":25000}`)}
	if tr, ok := r.Truncated(); !ok || tr.OriginalLength != 25000 || tr.Preview != `{"a":` {
		t.Errorf("marker not recognised: %+v %v", tr, ok)
	}
	for _, body := range []string{`{"__truncated":false,"preview":"","originalLength":1}`, `{"__truncated":true}`, `[1]`, `"x"`} {
		if _, ok := (&trace.Result{Body: []byte(body)}).Truncated(); ok {
			t.Errorf("%s taken for a truncation marker", body)
		}
	}
}

func TestReadRejects(t *testing.T) {
	meta := `{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}` + "\n"
	call := `{"t":"call","seq":1,"i":0,"ts":"s","tool":"x","args":{}}` + "\n"
	tests := []struct{ name, src, want string }{
		{"not json", meta + "nope\n", `line 2: not a JSON record: expected a JSON object, found "nope" (invalid character 'o' in literal null, expecting 'u')`},
		{"cut short", meta + `{"t":"call",` + "\n", `line 2: not a JSON record: expected a complete JSON object, found "{\"t\":\"call\"," (unexpected end of JSON input)`},
		{"bad key", meta + "{nope\n", `line 2: not a JSON record: expected a complete JSON object, found "{nope" (invalid character 'n' looking for beginning of object key string)`},
		{"array", meta + "[1, 2]\n", `line 2: not a JSON record: expected a JSON object, found an array: "[1, 2]"`},
		{"string", meta + `"note"` + "\n", `line 2: not a JSON record: expected a JSON object, found a string: "\"note\""`},
		{"number", meta + "42\n", `line 2: not a JSON record: expected a JSON object, found a number: "42"`},
		{"boolean", meta + "true\n", `line 2: not a JSON record: expected a JSON object, found a boolean: "true"`},
		{"null", meta + "null\n", `line 2: not a JSON record: expected a JSON object, found null`},
		{"long text", meta + "this line is not JSON and it goes on and on and on\n",
			`line 2: not a JSON record: expected a JSON object, found "this line is not JSON and it goes on and…" (invalid character 'h' in literal true, expecting 'r')`},
		{"control characters quoted", meta + "\x1b[2J\n", `line 2: not a JSON record: expected a JSON object, found "\x1b[2J" (invalid character '\x1b' looking for beginning of value)`},
		{"unknown t", meta + `{"t":"span","seq":1}` + "\n", `line 2: field "t": unknown record type "span"`},
		{"missing t", meta + `{"seq":1}` + "\n", `line 2: field "t": missing or not a string`},
		{"missing field", meta + `{"t":"note","seq":1,"ts":"s"}` + "\n", `line 2: field "text": missing`},
		{"wrong type", meta + `{"t":"call","seq":1,"i":"0","ts":"s","tool":"x","args":{}}` + "\n", `line 2: field "i": want a non-negative integer`},
		{"negative seq", meta + `{"t":"note","seq":-1,"ts":"s","text":""}` + "\n", `line 2: field "seq": want a non-negative integer`},
		{"meta not first", call + meta, `line 1: field "t": the first record must be meta`},
		{"two metas", meta + meta, `line 2: field "t": a second meta record`},
		{"meta later", call + meta, `line 1: field "t": the first record must be meta`},
		{"second result", meta + call + `{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":{}}` + "\n" + `{"t":"result","seq":3,"i":0,"ok":true,"ms":1,"body":{}}` + "\n", `line 4: field "i": a second result for call index 0`},
		{"duplicate i", meta + call + call, `line 3: field "i": duplicate call index 0`},
		{"orphan result", meta + `{"t":"result","seq":1,"i":4,"ok":true,"ms":1,"body":{}}` + "\n", `line 2: field "i": result for call index 4, which has no earlier call`},
		{"empty", "\n\n", "empty trace: no records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := trace.Read(strings.NewReader(tt.src))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant   %s", err, tt.want)
			}
		})
	}
}

func TestReaderContinuesAfterABadLine(t *testing.T) {
	rd := trace.NewReader(strings.NewReader("{bad\n" + `{"t":"note","seq":1,"ts":"s","text":"ok"}` + "\n"))
	_, err := rd.Next()
	var le *trace.LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("first: %v", err)
	}
	rec, err := rd.Next()
	if err != nil || rec.(*trace.Note).Text != "ok" || rd.Line() != 2 {
		t.Fatalf("second: %v %v", rec, err)
	}
}

func TestLongLines(t *testing.T) {
	body := strings.Repeat("x", 3<<20)
	src := `{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}` + "\n" +
		`{"t":"call","seq":1,"i":0,"ts":"s","tool":"x","args":{}}` + "\n" +
		`{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":"` + body + `"}`
	tr, err := trace.Read(strings.NewReader(src))
	if err != nil || len(tr.Records[2].(*trace.Result).Body) != len(body)+2 {
		t.Fatalf("3 MB line: %v", err)
	}
}

// TestPlaces: every record Scan hands over can be read again, alone, from
// the place it gave (CRLF, blank lines and a last line without a line
// break included); a place past the end of a shortened file is an error.
func TestPlaces(t *testing.T) {
	src := strings.NewReader(good)
	var recs []trace.Record
	var places []trace.Place
	err := trace.Scan(src, func(rec trace.Record, at trace.Place) error {
		recs, places = append(recs, rec), append(places, at)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []int{1, 3, 4, 5}
	for k, at := range places {
		if at.Line != wantLines[k] {
			t.Errorf("record %d: line %d, want %d", k, at.Line, wantLines[k])
		}
		again, err := trace.ReadRecordAt(strings.NewReader(good), at)
		if err != nil {
			t.Fatalf("record %d at %+v: %v", k, at, err)
		}
		if !reflect.DeepEqual(again, recs[k]) {
			t.Errorf("record %d read again differs:\n%#v\n%#v", k, again, recs[k])
		}
	}
	last := places[len(places)-1]
	short := good[:len(good)-5]
	if _, err := trace.ReadRecordAt(strings.NewReader(short), last); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading past the end: %v, want io.ErrUnexpectedEOF", err)
	}
	var le *trace.LineError
	if _, err := trace.ReadRecordAt(strings.NewReader(good), trace.Place{Line: 2, Offset: places[0].Offset + int64(places[0].Size), Size: 1}); !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("reading a blank line: %v, want a *LineError for line 2", err)
	}
}

// FuzzScan reads arbitrary bytes as a trace. Nothing may panic; Read and
// Scan agree; and every record Scan hands over reads back, alone and
// equal, from its place.
func FuzzScan(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(good + "\n" + strings.Repeat("x", 70<<10) + "\n"))
	f.Add([]byte(`{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}` + "\r\n\r\n  " + `{"t":"note","seq":1,"ts":"s","text":"` + strings.Repeat("é", 40<<10) + `"}`))
	f.Add([]byte(`{"t":"meta"}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		var recs []trace.Record
		var places []trace.Place
		scanErr := trace.Scan(bytes.NewReader(src), func(rec trace.Record, at trace.Place) error {
			recs, places = append(recs, rec), append(places, at)
			return nil
		})
		tr, readErr := trace.Read(bytes.NewReader(src))
		if (scanErr == nil) != (readErr == nil) || scanErr != nil && scanErr.Error() != readErr.Error() {
			t.Fatalf("Scan: %v; Read: %v", scanErr, readErr)
		}
		if readErr == nil && !reflect.DeepEqual(tr.Records, recs) {
			t.Fatalf("Read and Scan give different records")
		}
		// A second walk told which lines the first one checked reads the
		// same records without checking them again.
		n := 0
		var known []trace.Record
		knownErr := trace.ScanKnown(bytes.NewReader(src), func(p trace.Place) bool {
			ok := n < len(places) && places[n].Sum == p.Sum
			n++
			return ok
		}, func(rec trace.Record, _ trace.Place) error {
			known = append(known, rec)
			return nil
		})
		if (knownErr == nil) != (scanErr == nil) || !reflect.DeepEqual(known, recs) {
			t.Fatalf("ScanKnown (%v) differs from Scan (%v)", knownErr, scanErr)
		}
		// Borrowed records, copied as they are handed over, are the same
		// records, and the scan ends the same way.
		var lent []trace.Record
		lentErr := trace.ScanBorrowed(bytes.NewReader(src), nil, func(rec trace.Record, _ trace.Place) error {
			lent = append(lent, ownRecord(rec))
			return nil
		})
		if fmt.Sprint(lentErr) != fmt.Sprint(scanErr) || !reflect.DeepEqual(lent, recs) {
			t.Fatalf("ScanBorrowed (%v) differs from Scan (%v)", lentErr, scanErr)
		}
		for k, at := range places {
			if at.Offset < 0 || at.Offset+int64(at.Size) > int64(len(src)) {
				t.Fatalf("record %d: place %+v outside the %d bytes", k, at, len(src))
			}
			again, err := trace.ReadRecordAt(bytes.NewReader(src), at)
			if err != nil || !reflect.DeepEqual(again, recs[k]) {
				t.Fatalf("record %d at %+v reads back as %#v (%v), want %#v", k, at, again, err, recs[k])
			}
		}
	})
}

// TestFileError: the one form a trace's problems are reported in, naming
// the file once.
func TestFileError(t *testing.T) {
	_, openErr := os.Open("no/such.jsonl")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"line", &trace.LineError{Line: 3, Msg: "not a JSON record: x"}, "t.jsonl:3: not a JSON record: x"},
		{"field", &trace.LineError{Line: 2, Field: "seq", Msg: "missing"}, `t.jsonl:2: field "seq": missing`},
		{"wrapped line", fmt.Errorf("compiling: %w", &trace.LineError{Line: 4, Msg: "m"}), "t.jsonl:4: m"},
		{"empty", trace.ErrEmpty, "t.jsonl: empty trace: no records"},
		{"other", errors.New("the trace has no calls"), "t.jsonl: the trace has no calls"},
		{"path already said", errors.New("t.jsonl: changed while it was read"), "t.jsonl: changed while it was read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trace.InFile("t.jsonl", tt.err).Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if got, want := trace.InFile("no/such.jsonl", openErr).Error(), "no/such.jsonl: cannot open it: no such file or directory"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if trace.InFile("x", nil) != nil {
		t.Error("InFile(nil) is not nil")
	}
	once := trace.InFile("a.jsonl", trace.ErrEmpty)
	if trace.InFile("a.jsonl", once) != once || !errors.Is(once, trace.ErrEmpty) {
		t.Error("InFile wraps twice or hides the cause")
	}
}

// ownRecord copies a record ScanBorrowed lent.
func ownRecord(rec trace.Record) trace.Record {
	switch r := rec.(type) {
	case *trace.Note:
		c := *r
		return &c
	case *trace.Call:
		c := *r
		c.Args = bytes.Clone(r.Args)
		return &c
	case *trace.Result:
		c := *r
		c.Body = bytes.Clone(r.Body)
		return &c
	}
	return rec
}
