package attest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/replay/runlog"
)

// BundleDir is the folder of a skill's signed receipts beside its run
// history: <runs-dir>/<skill>.bundles.
func BundleDir(runsDir, skill string) string {
	return filepath.Join(runsDir, strings.TrimSuffix(runlog.FileName(skill), ".jsonl")+".bundles")
}

// BundleName is the file name of one record's bundle: its start time
// (colons and dots left out) and the first 12 hex digits of the record
// line's SHA-256, then .sigstore.json.
func BundleName(p *Predicate) string {
	ts := strings.NewReplacer(":", "", "-", "", ".", "").Replace(p.StartedAt)
	h := p.RecordSHA256
	if len(h) > 12 {
		h = h[:12]
	}
	return ts + "-" + h + ".sigstore.json"
}

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
