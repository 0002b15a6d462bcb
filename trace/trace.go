package trace

import (
	"errors"
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
	err := Scan(r, func(rec Record, at Place) error {
		if m, ok := rec.(*Meta); ok {
			tr.Meta = m
		}
		tr.Records = append(tr.Records, rec)
		tr.Lines = append(tr.Lines, at.Line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// ErrEmpty is returned for a trace without a single record.
var ErrEmpty = errors.New("empty trace: no records")

// Scan reads the trace in r one record at a time, makes Read's checks, and
// hands each record with its place in the file to fn, meta first. Nothing is
// kept but the call indexes the checks need, so a trace can be walked in
// memory that does not grow with its bodies. The first problem, or the
// first error fn returns, stops the scan and is returned.
func Scan(r io.Reader, fn func(rec Record, at Place) error) error {
	return ScanKnown(r, nil, fn)
}

// ScanKnown is Scan with known (Reader.Known): lines a previous walk over
// the same file checked, read again with the same bytes, are not checked
// for valid JSON a second time.
func ScanKnown(r io.Reader, known func(Place) bool, fn func(rec Record, at Place) error) error {
	return scan(r, known, false, fn)
}

// ScanBorrowed is ScanKnown with borrowed records (Reader.Borrow): fn
// must not keep a note, call or result, nor a call's Args or a result's
// Body, past its return. It allocates far less than ScanKnown.
func ScanBorrowed(r io.Reader, known func(Place) bool, fn func(rec Record, at Place) error) error {
	return scan(r, known, true, fn)
}

func scan(r io.Reader, known func(Place) bool, borrow bool, fn func(rec Record, at Place) error) error {
	rd := NewReader(r)
	rd.Known, rd.Borrow = known, borrow
	var chk Checker
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if bad := chk.Check(rec, rd.Line()); bad != nil {
			return bad
		}
		if err := fn(rec, rd.Place()); err != nil {
			return err
		}
	}
	if chk.Empty() {
		return ErrEmpty
	}
	return nil
}
