package attest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/replay/runlog"
)

// BundleDir is runlog.BundleDir: <runs-dir>/<skill>.bundles.
func BundleDir(runsDir, skill string) string { return runlog.BundleDir(runsDir, skill) }

// BundleName is the file name of one record's bundle (runlog.BundleName).
func BundleName(p *Predicate) string { return runlog.BundleName(p.StartedAt, p.RecordSHA256) }

// WriteBundle writes a record's bundle in dir, atomically; a bundle that
// is already there (the record signed before) is left as it is and
// refused.
func WriteBundle(dir, name string, bundle []byte) (string, error) {
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil {
		return path, fmt.Errorf("%s already exists: this run record is signed already", path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return path, err
	}
	return path, atomicfile.Write(path, bundle, 0o644)
}
