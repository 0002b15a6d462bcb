// Package atomicfile writes files so that a crash never leaves a torn one:
// the bytes go to a temporary file in the same directory, are synced, and
// the temporary file is renamed over the target.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// TempPattern returns the os.CreateTemp pattern of the temporary files Write
// creates for path, relative to path's directory. A caller that serialises
// its writers (a lock) may remove matches a killed process left behind.
func TempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// beforeRename, when set by a test, runs after the temporary file is
// complete and before it is renamed over the target; an error it returns
// fails the write there.
var beforeRename func(tmp string) error

// osRename is os.Rename; tests replace it to reproduce platform failures.
var osRename = os.Rename

// Write replaces path with data atomically, keeping the existing file's
// permission bits (perm is used when the file is new).
//
// If renaming over the target fails with "exists" or "permission denied"
// (seen on Windows when the target is open elsewhere), the target is removed
// and the rename retried exactly once. The temporary file is removed on every
// path that does not rename it into place.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write for content produced as it is written: fill writes
// the new file's bytes to w (buffered). If fill fails, nothing is renamed,
// the target is untouched and fill's error is returned.
func WriteFunc(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	if info, statErr := os.Stat(path); statErr == nil {
		perm = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPattern(path))
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	buf := bufio.NewWriter(tmp)
	if err = fill(buf); err != nil {
		return err
	}
	if err = buf.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		if err = beforeRename(tmp.Name()); err != nil {
			return err
		}
	}
	if err = rename(tmp.Name(), path); err != nil {
		return err
	}
	renamed = true
	return nil
}

// rename moves tmp over path, with the one remove-and-retry fallback.
func rename(tmp, path string) error {
	err := osRename(tmp, path)
	if err == nil || !(errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrPermission)) {
		return err
	}
	if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return err
	}
	return osRename(tmp, path)
}
