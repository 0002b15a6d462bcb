// Package atomicfile writes files so that a crash never leaves a torn one:
// the bytes go to a temporary file in the same directory, are synced, and
// the temporary file is renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data atomically, keeping the existing file's
// permission bits (perm is used when the file is new).
func Write(path string, data []byte, perm os.FileMode) (err error) {
	if info, statErr := os.Stat(path); statErr == nil {
		perm = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
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
	return os.Rename(tmp.Name(), path)
}
