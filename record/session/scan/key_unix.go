//go:build unix

package scan

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// keyOf identifies a file by its device and inode.
func keyOf(path string, info fs.FileInfo) fileKey {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return pathKey(path)
}

// pathKey identifies a file by its absolute path.
func pathKey(path string) fileKey {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return fileKey{path: abs}
}
