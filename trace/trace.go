package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Trace is a whole trace file read into memory and checked for structure.
type Trace struct {
	Meta    *Meta
	Records []Record // every record, meta included, in file order
	// Lines holds the line number of each record in Records.
	Lines []int
}

// Load reads and checks the trace at path.
func Load(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads a whole trace and checks what every consumer relies on: the
// first record is the one meta record, call indexes are unique, and each
// result follows the call with its index. The first problem is returned
// as a *LineError.
func Read(r io.Reader) (*Trace, error) {
	tr := &Trace{}
	rd := NewReader(r)
	calls := map[int]bool{}
	results := map[int]bool{}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line := rd.Line()
		switch rec := rec.(type) {
		case *Meta:
			if tr.Meta != nil {
				return nil, &LineError{Line: line, Field: "t", Msg: "a second meta record; a trace has exactly one, first"}
			}
			if len(tr.Records) > 0 {
				return nil, &LineError{Line: line, Field: "t", Msg: "the meta record must be the first record"}
			}
			tr.Meta = rec
		case *Call:
			if calls[rec.I] {
				return nil, &LineError{Line: line, Field: "i", Msg: fmt.Sprintf("duplicate call index %d", rec.I)}
			}
			calls[rec.I] = true
		case *Result:
			if !calls[rec.I] {
				return nil, &LineError{Line: line, Field: "i", Msg: fmt.Sprintf("result for call index %d, which has no earlier call", rec.I)}
			}
			if results[rec.I] {
				return nil, &LineError{Line: line, Field: "i", Msg: fmt.Sprintf("a second result for call index %d", rec.I)}
			}
			results[rec.I] = true
		}
		if tr.Meta == nil {
			return nil, &LineError{Line: line, Field: "t", Msg: "the first record must be meta"}
		}
		tr.Records = append(tr.Records, rec)
		tr.Lines = append(tr.Lines, line)
	}
	if tr.Meta == nil {
		return nil, errors.New("empty trace: no meta record")
	}
	return tr, nil
}
