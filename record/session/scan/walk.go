package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Reasons a path under the history directory is not read. Every one is
// counted, never fatal.
const (
	SkipUnreadable = "unreadable"
	SkipBinary     = "binary file (it holds NUL bytes)"
	SkipLoop       = "symbolic link loop"
	SkipBroken     = "broken symbolic link"
	SkipDuplicate  = "already scanned through another path"
	SkipReadError  = "read error"
)

// file is one transcript to read.
type file struct {
	path string
	size int64
}

// walker finds every *.jsonl file under a directory, following symbolic
// links but never into a directory it is already inside or has already
// walked, and never reading a file twice.
type walker struct {
	files   []file
	skipped map[string]int
	seen    map[fileKey]bool // directories and files already taken
	inside  map[fileKey]bool // directories on the current path
}

func walk(root string) (*walker, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &fs.PathError{Op: "scan", Path: root, Err: errors.New("not a directory")}
	}
	w := &walker{skipped: map[string]int{}, seen: map[fileKey]bool{}, inside: map[fileKey]bool{}}
	w.dir(root, info)
	return w, nil
}

func (w *walker) dir(path string, info fs.FileInfo) {
	key := keyOf(path, info)
	switch {
	case w.inside[key]:
		w.skipped[SkipLoop]++
		return
	case w.seen[key]:
		w.skipped[SkipDuplicate]++
		return
	}
	w.seen[key], w.inside[key] = true, true
	defer delete(w.inside, key)
	entries, err := os.ReadDir(path)
	if err != nil {
		w.skipped[SkipUnreadable]++
	}
	for _, e := range entries {
		w.entry(filepath.Join(path, e.Name()), e)
	}
}

func (w *walker) entry(path string, e fs.DirEntry) {
	if e.Type()&fs.ModeSymlink == 0 && !e.IsDir() && !isCandidate(path) {
		return
	}
	info, err := os.Stat(path) // follows a link
	switch {
	case errors.Is(err, syscall.ELOOP):
		w.skipped[SkipLoop]++
		return
	case errors.Is(err, fs.ErrNotExist):
		w.skipped[SkipBroken]++
		return
	case err != nil:
		w.skipped[SkipUnreadable]++
		return
	}
	switch {
	case info.IsDir():
		w.dir(path, info)
	case info.Mode().IsRegular() && isCandidate(path):
		key := keyOf(path, info)
		if w.seen[key] {
			w.skipped[SkipDuplicate]++
			return
		}
		w.seen[key] = true
		w.files = append(w.files, file{path: path, size: info.Size()})
	}
}

// isTranscript reports whether a file name is a JSON-lines transcript's:
// one that holds a NUL byte is counted as a binary file, not passed over.
func isTranscript(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// isCandidate reports whether a file is looked into: a *.jsonl or *.json
// file, which the host table's sniffers then claim or pass over.
func isCandidate(path string) bool {
	return strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json")
}

// fileKey identifies a file across the links that lead to it.
type fileKey struct {
	dev, ino uint64
	path     string // when the system gives no device and inode
}
