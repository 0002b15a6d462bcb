// Package skillfile is the one way a skill file is rewritten in place.
// Heal write-back (replay/writeback), `reelier fmt -w`, `reelier lint
// --fix` and `reelier calibrate -w` all go through Update, so they
// serialise on one lock and each computes its new content from the file
// as it is once it holds the lock, never from an older read: a writer can
// no longer put back a copy that predates another's change.
//
// Update follows a symbolic link and rewrites its target, so the link
// stays a link; the lock and the temporary file are the target's, in the
// target's directory. The write itself is internal/atomicfile's (a
// temporary file beside the target, synced, renamed over it, the directory
// synced), which also removes the temporary files killed writers of the
// same target left behind.
package skillfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// Update rewrites the skill file at path. Under the file's lock it reads
// the file as it is now and passes its bytes to edit, which returns the
// new content computed from them; the new content is written atomically
// when it differs. Update reports whether it wrote.
//
// Nothing is written, and an error says why, when edit fails, when the
// file is read-only (no write permission bit at all, a choice honoured
// even for root), or when the new content does not parse. edit runs with
// the lock held: it must not call Update for the same file.
//
// A symbolic link at path is followed: the target is locked, read and
// replaced, and the link is left as it is.
func Update(path string, edit func(src []byte) ([]byte, error)) (bool, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, err
	}
	unlock, err := Lock(target)
	if err != nil {
		return false, err
	}
	defer unlock()
	info, err := os.Stat(target)
	if err != nil {
		return false, err
	}
	if info.Mode().Perm()&0o222 == 0 {
		return false, fmt.Errorf("%s is read-only (mode %v)", path, info.Mode().Perm())
	}
	src, err := os.ReadFile(target)
	if err != nil {
		return false, err
	}
	out, err := edit(src)
	if err != nil || bytes.Equal(out, src) {
		return false, err
	}
	if _, diags := grammar.Parse(path, out); diags.HasErrors() {
		return false, fmt.Errorf("the rewritten %s would not parse (%v); it was left as it was", path, firstError(diags))
	}
	if err := atomicfile.Write(target, out, info.Mode().Perm()); err != nil {
		return false, err
	}
	return true, nil
}

// Lock takes the advisory lock every rewrite of the skill file at path
// holds, waiting while another process or goroutine holds it, and returns
// the function that releases it. path should already be resolved (Update
// locks a link's target). The lock is github.com/gofrs/flock on a sidecar
// file (LockPath), which stays behind, empty.
func Lock(path string) (unlock func(), err error) {
	lock := flock.New(LockPath(path))
	if err := lock.Lock(); err != nil {
		return nil, fmt.Errorf("locking %s: %w", lock.Path(), err)
	}
	return func() { lock.Close() }, nil
}

// LockPath is the sidecar lock file of a skill file, `.<name>.lock` beside
// it. The skill file itself cannot carry the lock: every write replaces it
// with a new file.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// firstError returns the first error-severity diagnostic, or nil.
func firstError(diags ast.Diagnostics) error {
	for _, d := range diags {
		if d.Severity == ast.SeverityError {
			return errors.New(d.String())
		}
	}
	return nil
}
