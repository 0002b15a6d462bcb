package compile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/trace"
)

// walkTrace is a two-call trace where the second call sends the first
// result's id.
const walkTrace = `{"t":"meta","seq":0,"name":"w","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"]}
{"t":"call","seq":1,"i":0,"ts":"s","tool":"get_a","args":{"q":"first"}}
{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{\"id\":\"obj_0001\"}"}]}}
{"t":"call","seq":3,"i":1,"ts":"s","tool":"get_b","args":{"id":"obj_0001"}}
{"t":"result","seq":4,"i":1,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{}"}]}}
`

// changingRecords walks versions[0] the first time, versions[1] the
// second, and reads single calls from the version after that (each list
// keeps its last version).
func changingRecords(t *testing.T, versions ...string) records {
	t.Helper()
	var traces []*trace.Trace
	for _, v := range versions {
		tr, err := trace.Read(strings.NewReader(v))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	n := 0
	current := func() *trace.Trace { return traces[min(n, len(traces)-1)] }
	return records{
		walk: func(fn func(trace.Record, trace.Place) error) error {
			err := memoryRecords(current()).walk(fn)
			n++
			return err
		},
		open: func() (func(trace.Place) (trace.Record, error), func(), error) {
			return memoryRecords(current()).open()
		},
	}
}

// TestTraceChangedBetweenWalks: the compiler reads a trace file more than
// once; a trace whose calls differ from one walk to the next is an error,
// not a skill mixed from two recordings. Records added after the first
// walk (a recording still being written) are left out, not an error.
func TestTraceChangedBetweenWalks(t *testing.T) {
	edited := strings.Replace(walkTrace, `"q":"first"`, `"q":"other"`, 1)
	renamed := strings.Replace(walkTrace, `"tool":"get_b"`, `"tool":"get_c"`, 1)
	shorter := walkTrace[:strings.Index(walkTrace, `{"t":"call","seq":3`)]
	grown := walkTrace + `{"t":"call","seq":5,"i":2,"ts":"s","tool":"get_d","args":{}}` + "\n"
	for _, tt := range []struct {
		name     string
		versions []string
		// inAnalysis is set when the second walk, inside analyse, sees the
		// change; otherwise Write's reading of the calls does.
		inAnalysis bool
		wantErr    bool
	}{
		{"args edited before the second walk", []string{walkTrace, edited}, true, true},
		{"tool renamed before the second walk", []string{walkTrace, renamed}, true, true},
		{"cut before the second walk", []string{walkTrace, shorter}, true, true},
		{"args edited before the calls are read again", []string{walkTrace, walkTrace, edited}, false, true},
		{"cut before the calls are read again", []string{walkTrace, walkTrace, shorter}, false, true},
		{"grown after the first walk", []string{walkTrace, grown, grown}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x, err := analyse(changingRecords(t, tt.versions...), Options{})
			if tt.inAnalysis {
				if !errors.Is(err, ErrTraceChanged) {
					t.Fatalf("analyse: err = %v, want ErrTraceChanged", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = x.Write(&out)
			if tt.wantErr != errors.Is(err, ErrTraceChanged) {
				t.Fatalf("Write: err = %v, want ErrTraceChanged: %v", err, tt.wantErr)
			}
			if !tt.wantErr && (strings.Contains(out.String(), "get_d") || !strings.Contains(out.String(), `get_b {"id": "{{id}}"}`)) {
				t.Errorf("the skill is not the first walk's two steps:\n%s", out.String())
			}
		})
	}
}

// TestNewFileChangedOnDisk: the same, through a real file edited between
// NewFile and Write.
func TestNewFileChangedOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(walkTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := NewFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(walkTrace, "obj_0001\"}}", "obj_0002\"}}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Write(&bytes.Buffer{}); !errors.Is(err, ErrTraceChanged) {
		t.Fatalf("Write after an edit: err = %v, want ErrTraceChanged", err)
	}
	cut := strings.Index(walkTrace, `{"t":"call","seq":3`) + 20 // inside the second call
	if err := os.WriteFile(path, []byte(walkTrace[:cut]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Write(&bytes.Buffer{}); !errors.Is(err, ErrTraceChanged) {
		t.Fatalf("Write after the file was cut short: err = %v, want ErrTraceChanged", err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("\n", len(walkTrace))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Write(&bytes.Buffer{}); !errors.Is(err, ErrTraceChanged) {
		t.Fatalf("Write after the file was blanked: err = %v, want ErrTraceChanged", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Skill(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Skill after the file went: err = %v, want a not-exist error", err)
	}
}
