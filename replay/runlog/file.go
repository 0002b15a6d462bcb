package runlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultDir is the run-history directory used unless another is given.
const DefaultDir = ".reelier/runs"

// FileName returns the history file name for a skill: the skill name with
// every byte outside [A-Za-z0-9._-] replaced by '_' (so a name can never
// reach outside the runs directory), plus ".jsonl".
func FileName(skill string) string {
	b := []byte(skill)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	name := string(b)
	if name == "" || name == "." || name == ".." {
		name = "_" + name
	}
	return name + ".jsonl"
}

// Path returns the history file of a skill inside dir.
func Path(dir, skill string) string { return filepath.Join(dir, FileName(skill)) }

// Marshal renders a record as one line of JSON ending in a newline. HTML
// characters are not escaped, matching JSON.stringify.
func Marshal(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Append adds the record as one line to the skill's history file in dir,
// creating both as needed, and returns the file's path. The line goes out
// in a single write(2) on a file opened with O_APPEND, so concurrent runs of
// the same skill never interleave within a line.
func Append(dir string, r *Record) (string, error) { return appendIn(osFiles{}, dir, r) }

// AppendIn is Append for the directory dir inside root (dir is relative to
// root, and so is the path returned): the directory is created and the
// history file opened through root, so a symbolic link, even one swapped in
// after the caller checked the path, cannot lead the line outside it.
func AppendIn(root *os.Root, dir string, r *Record) (string, error) { return appendIn(root, dir, r) }

// files is where a history file is written: the file system by path
// (osFiles) or an *os.Root, whose methods keep every name inside it.
type files interface {
	MkdirAll(name string, perm fs.FileMode) error
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
}

// osFiles is the file system by path.
type osFiles struct{}

func (osFiles) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }
func (osFiles) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// appendIn is every Append.
func appendIn(fsys files, dir string, r *Record) (string, error) {
	path := Path(dir, r.Skill)
	line, err := Marshal(r)
	if err != nil {
		return path, err
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return path, err
	}
	f, err := fsys.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return path, err
	}
	n, werr := f.Write(line)
	cerr := f.Close()
	switch {
	case werr != nil:
		return path, werr
	case n != len(line):
		return path, fmt.Errorf("short write to %s: %d of %d bytes", path, n, len(line))
	}
	return path, cerr
}

// BundleDir is the folder of a skill's signed receipts beside its run
// history: <runs-dir>/<skill>.bundles (reelier run --sign writes them,
// reelier push sends each with its record).
func BundleDir(runsDir, skill string) string {
	return filepath.Join(runsDir, strings.TrimSuffix(FileName(skill), ".jsonl")+".bundles")
}

// BundleName is the file name of one record's bundle: the record's start
// time (colons, dashes and dots left out) and the first 12 hex digits of
// the SHA-256 of its history line (newline included), then .sigstore.json.
func BundleName(startedAt, recordSHA256 string) string {
	ts := strings.NewReplacer(":", "", "-", "", ".", "").Replace(startedAt)
	if len(recordSHA256) > 12 {
		recordSHA256 = recordSHA256[:12]
	}
	return ts + "-" + recordSHA256 + ".sigstore.json"
}
