package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// own copies a record ScanBorrowed lent, so it can be kept.
func own(rec Record) Record {
	switch r := rec.(type) {
	case *Note:
		c := *r
		return &c
	case *Call:
		c := *r
		c.Args = bytes.Clone(r.Args)
		return &c
	case *Result:
		c := *r
		c.Body = bytes.Clone(r.Body)
		return &c
	}
	return rec
}

// scanAll collects every record and place of a scan, and its error.
func scanAll(src []byte, scan func(*bytes.Reader, func(Record, Place) error) error) ([]Record, []Place, string) {
	var recs []Record
	var places []Place
	err := scan(bytes.NewReader(src), func(rec Record, at Place) error {
		recs = append(recs, own(rec))
		places = append(places, at)
		return nil
	})
	return recs, places, fmt.Sprint(err)
}

// TestScanBorrowed checks ScanBorrowed hands out the records, places and
// errors ScanKnown does, on every trace in the repository's testdata and
// on lines of every shape.
func TestScanBorrowed(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("..", "compile", "testdata", "traces", "*.jsonl"))
	paths = append(paths, more...)
	if len(paths) < 20 {
		t.Fatalf("found %d traces", len(paths))
	}
	srcs := map[string][]byte{
		"mixed": []byte(`{"t":"meta","seq":0,"name":"n","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"]}
{"t":"note","seq":1,"ts":"x","text":"a \"quoted\" note"}
{"t":"call","seq":2,"i":0,"ts":"x","tool":"get","args":{"a":[1,2,{"b":"c"}]}}

{"t":"result","seq":3,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"hi"}]},"relay":[]}
{"t":"call","seq":4,"i":1,"ts":"x","tool":"get","args":{"a":1},"extra":true}
{"t":"result","seq":5,"i":1,"ok":false,"ms":1,"body":null}
`),
		"bad-json":  []byte("{\"t\":\"meta\",\"seq\":0,\"name\":\"n\",\"startedAt\":\"x\",\"wrapped\":[]}\n{\"t\":\"call\",\"seq\":1,\"i\":0,\"ts\":\"x\",\"tool\":\"get\",\"args\":{\"a\":}}\n"),
		"dup-call":  []byte("{\"t\":\"meta\",\"seq\":0,\"name\":\"n\",\"startedAt\":\"x\",\"wrapped\":[]}\n{\"t\":\"call\",\"seq\":1,\"i\":0,\"ts\":\"x\",\"tool\":\"get\",\"args\":{}}\n{\"t\":\"call\",\"seq\":2,\"i\":0,\"ts\":\"x\",\"tool\":\"get\",\"args\":{}}\n"),
		"long-line": []byte("{\"t\":\"meta\",\"seq\":0,\"name\":\"n\",\"startedAt\":\"x\",\"wrapped\":[]}\n{\"t\":\"note\",\"seq\":1,\"ts\":\"x\",\"text\":\"" + string(bytes.Repeat([]byte("long "), 30000)) + "\"}\n"),
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = src
	}
	for name, src := range srcs {
		wantRecs, wantPlaces, wantErr := scanAll(src, func(r *bytes.Reader, fn func(Record, Place) error) error { return ScanKnown(r, nil, fn) })
		gotRecs, gotPlaces, gotErr := scanAll(src, func(r *bytes.Reader, fn func(Record, Place) error) error { return ScanBorrowed(r, nil, fn) })
		if diff := cmp.Diff(wantRecs, gotRecs); diff != "" {
			t.Errorf("%s: records differ (-ScanKnown +ScanBorrowed):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantPlaces, gotPlaces); diff != "" {
			t.Errorf("%s: places differ:\n%s", name, diff)
		}
		if gotErr != wantErr {
			t.Errorf("%s: error %s, want %s", name, gotErr, wantErr)
		}
	}
}

// TestCheckerIndexes checks call indexes far apart, the ones the dense
// flags hold and the ones beyond them alike.
func TestCheckerIndexes(t *testing.T) {
	meta := &Meta{T: KindMeta}
	for _, tt := range []struct {
		name string
		recs []Record
		want string // the first error, "" for none
	}{
		{"in order", []Record{meta, &Call{I: 0}, &Result{I: 0}, &Call{I: 1}, &Result{I: 1}}, ""},
		{"far index", []Record{meta, &Call{I: 1 << 40}, &Call{I: 3}, &Result{I: 1 << 40}, &Result{I: 3}}, ""},
		{"far then near", []Record{meta, &Call{I: 5000}, &Call{I: 0}, &Result{I: 5000}, &Call{I: 5000}}, "line 5: field \"i\": duplicate call index 5000"},
		{"duplicate", []Record{meta, &Call{I: 2}, &Call{I: 2}}, "line 3: field \"i\": duplicate call index 2"},
		{"no call", []Record{meta, &Call{I: 2}, &Result{I: 3}}, "line 3: field \"i\": result for call index 3, which has no earlier call"},
		{"second result", []Record{meta, &Call{I: 7000}, &Result{I: 7000}, &Result{I: 7000}}, "line 4: field \"i\": a second result for call index 7000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c Checker
			// Many calls first, so the dense flags grow past the far
			// indexes some cases use.
			recs := tt.recs
			got := ""
			for k, rec := range recs {
				if bad := c.Check(rec, k+1); bad != nil {
					got = bad.Error()
					break
				}
				if k == 1 {
					for j := 0; j < 6000; j++ {
						c.n++
					}
				}
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLineReader checks LineReader.Read against ReadRecordAt at every
// place of the golden traces, forwards, at places skipped and going
// back, and at places past the end of the file.
func TestLineReader(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "compile", "testdata", "traces", "*.jsonl"))
	if len(paths) < 20 {
		t.Fatalf("found %d traces", len(paths))
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var places []Place
		if err := Scan(bytes.NewReader(src), func(_ Record, at Place) error {
			places = append(places, at)
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// Every place, every other place, then back to the start; a
		// place whose bytes changed; one past the end.
		order := append([]Place{}, places...)
		for k := 0; k < len(places); k += 2 {
			order = append(order, places[k])
		}
		order = append(order, places[0])
		changed := places[len(places)-1]
		changed.Sum++
		past := places[len(places)-1]
		past.Offset += int64(len(src))
		order = append(order, changed, past)
		lr := NewLineReader(bytes.NewReader(src))
		for k, at := range order {
			want, wantErr := ReadRecordAt(bytes.NewReader(src), at)
			got, gotErr := lr.Read(at)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%s: read %d at %+v: error %v, want %v", p, k, at, gotErr, wantErr)
			}
			if gotErr == nil {
				if diff := cmp.Diff(want, own(got)); diff != "" {
					t.Fatalf("%s: read %d at %+v differs (-ReadRecordAt +LineReader):\n%s", p, k, at, diff)
				}
			}
		}
	}
}
