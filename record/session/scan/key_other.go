//go:build !unix

package scan

import (
	"io/fs"
	"path/filepath"
)

// keyOf identifies a file by the absolute path with links resolved.
func keyOf(path string, _ fs.FileInfo) fileKey {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return fileKey{path: abs}
}
