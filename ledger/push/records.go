package push

import (
	"bytes"
	"encoding/json"
	"errors"
)

// record is one run record of a history file.
type record struct {
	// line is the 1-based line number in the file.
	line int
	data []byte
	// err is set when the line is not JSON; such a line can never be sent.
	err error
}

// readRecords returns the records of a history file in order: every line
// that is not blank, so a record's index is its position among them.
func readRecords(fsys place, path string) ([]record, error) {
	data, err := fsys.readFile(path)
	if err != nil {
		return nil, err
	}
	var recs []record
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		r := record{line: n + 1, data: line}
		if !json.Valid(line) {
			var v any
			r.err = json.Unmarshal(line, &v)
			if r.err == nil {
				r.err = errors.New("not valid JSON")
			}
		}
		recs = append(recs, r)
	}
	return recs, nil
}
