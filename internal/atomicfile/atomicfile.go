// Package atomicfile writes files so that a crash never leaves a torn one:
// the bytes go to a temporary file in the same directory, are synced, and
// the temporary file is renamed over the target.
//
// Write and WriteFunc take a path; WriteIn and WriteFuncIn take a name
// inside an os.Root, and every step of theirs (the temporary file's
// creation, the rename, the clean-up) goes through the root, so a symbolic
// link swapped into the name's directories cannot lead the write outside
// it. Both kinds share one implementation.
//
// Temporary files are named `.<name>.reelier-tmp-<pid>-<random>` beside
// their target <name>, with the writing process's id. A writer killed
// before its rename leaves its temporary file behind; every write removes
// the leftovers of its own target before it starts: those whose process
// is gone (on Unix, where a process id can be checked) and those not
// modified for StaleAfter, whatever their process id says (a reused id, a
// writer on another machine sharing the folder). A writer that is still
// running writes as it goes, so its temporary file stays fresh; one that
// loses its temporary file anyway fails at the rename, and the target
// keeps its old content. After the rename the directory is synced (on
// Unix; best effort, the new content being in place already), so the
// rename itself survives a power cut.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TempPattern returns a filepath.Match pattern of the temporary files
// writes of path create, relative to path's directory:
// `.<name>.reelier-tmp-*`. Writes remove the stale ones themselves.
func TempPattern(path string) string { return tempPrefix(path) + "*" }

// tempPrefix is what the temporary files of path are named by, before
// `<pid>-<random>`.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".reelier-tmp-" }

// StaleAfter is how long a temporary file may go unmodified before a
// write of the same target removes it as a killed writer's leftover,
// even when the process id in its name is running (a reused id).
const StaleAfter = 10 * time.Minute

// fsys is where a write happens: the file system by path (osDir) or an
// *os.Root, whose methods keep every name inside it.
type fsys interface {
	Open(name string) (*os.File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
}

// osDir is the file system by path.
type osDir struct{}

func (osDir) Open(name string) (*os.File, error)     { return os.Open(name) }
func (osDir) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (osDir) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osDir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osDir) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osDir) Remove(name string) error             { return os.Remove(name) }

// beforeRename, when set by a test, runs after the temporary file is
// complete and before it is renamed over the target, with the temporary
// file's full path; an error it returns fails the write there.
var beforeRename func(tmp string) error

// renameIn is d.Rename; tests replace it to reproduce platform failures.
var renameIn = func(d fsys, oldname, newname string) error { return d.Rename(oldname, newname) }

// Write replaces path with data atomically, keeping the existing file's
// permission bits (perm is used when the file is new).
//
// If renaming over the target fails with "exists" or "permission denied"
// (seen on Windows when the target is open elsewhere), the target is removed
// and the rename retried exactly once. The temporary file is removed on every
// path that does not rename it into place.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(osDir{}, path, perm, bytesOf(data))
}

// WriteFunc is Write for content produced as it is written: fill writes
// the new file's bytes to w (buffered). If fill fails, nothing is renamed,
// the target is untouched and fill's error is returned.
func WriteFunc(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	return write(osDir{}, path, perm, fill)
}

// WriteIn is Write for the file name inside root. Name's directory is
// opened through root once, and the temporary file is created in it,
// synced, and renamed over the target in it: a name, or a symbolic link on
// its way, that leads outside root is refused, also when the link changed
// since the caller last looked, and a link swapped in half way cannot part
// the temporary file from its target's folder. The directory must exist
// (root.MkdirAll makes it).
func WriteIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return WriteFuncIn(root, name, perm, bytesOf(data))
}

// WriteFuncIn is WriteFunc for the file name inside root, as WriteIn.
func WriteFuncIn(root *os.Root, name string, perm os.FileMode, fill func(w io.Writer) error) error {
	dir, err := root.OpenRoot(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer dir.Close()
	return write(dir, filepath.Base(name), perm, fill)
}

// bytesOf is a fill that writes data.
func bytesOf(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// write is every Write: the stale temporary files of name removed, a
// temporary file beside name in d, filled, flushed, given its mode,
// synced, closed and renamed over name, and the directory synced.
func write(d fsys, name string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	// The folder is opened once, before anything is written: to list it
	// for stale temporary files, and to sync it after the rename. Where it
	// cannot be opened (a folder without read permission), neither
	// happens; the write itself does not need it.
	if folder, openErr := d.Open(filepath.Dir(name)); openErr == nil {
		defer folder.Close()
		removeStale(d, folder, name, time.Now())
		defer func() {
			if err == nil {
				syncDir(folder)
			}
		}()
	}
	if info, statErr := d.Stat(name); statErr == nil {
		perm = info.Mode().Perm()
	}
	tmp, tmpName, err := createTemp(d, name)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			d.Remove(tmpName)
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
	if err = rename(d, tmpName, name); err != nil {
		return err
	}
	renamed = true
	return nil
}

// createTemp creates a new file `.<name>.reelier-tmp-<pid>-<random>` in
// name's directory, as os.CreateTemp does (mode 0600, O_EXCL, a random
// suffix retried on a clash), and returns it with its name in d.
func createTemp(d fsys, name string) (*os.File, string, error) {
	prefix := filepath.Join(filepath.Dir(name), tempPrefix(name)+strconv.Itoa(os.Getpid())+"-")
	for try := 0; ; try++ {
		tmpName := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err := d.OpenFile(tmpName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, tmpName, err
	}
}

// rename moves tmp over name, with the one remove-and-retry fallback.
func rename(d fsys, tmp, name string) error {
	err := renameIn(d, tmp, name)
	if err == nil || !(errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrPermission)) {
		return err
	}
	if rmErr := d.Remove(name); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return err
	}
	return renameIn(d, tmp, name)
}

// removeStale removes the temporary files of name that writers killed
// before their rename left behind: those named for a process that is gone
// and those not modified for StaleAfter. Another writer's temporary file
// in flight is kept. folder is name's directory, open. Failures are
// ignored: the write goes on, and a later one tries again.
func removeStale(d fsys, folder *os.File, name string, now time.Time) {
	dir := filepath.Dir(name)
	names, _ := folder.Readdirnames(-1)
	prefix := tempPrefix(name)
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok {
			continue
		}
		pid, ok := tempPID(rest)
		if !ok {
			continue // not one of ours
		}
		p := filepath.Join(dir, n)
		info, err := d.Lstat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if now.Sub(info.ModTime()) > StaleAfter || pid != os.Getpid() && processGone(pid) {
			d.Remove(p)
		}
	}
}

// tempPID reads `<pid>-<random>`, the end of a temporary file's name.
func tempPID(rest string) (int, bool) {
	pidText, random, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || random == "" || strings.Trim(random, "0123456789") != "" {
		return 0, false
	}
	return pid, true
}

// syncDir syncs the open folder a rename happened in, so the rename is
// durable, where the platform can (see platform_*.go). It is the folder
// opened before the write, so a folder swapped for a link since is not
// followed. A failure is not reported: the new content is in place, which
// is what a caller asks of a write, and some file systems cannot sync a
// folder at all.
func syncDir(folder *os.File) {
	if canSyncDir {
		folder.Sync()
	}
}
