package agentcfg

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
)

// backupInfix separates a config's path from its backup's timestamp.
const backupInfix = ".backup-"

// backupSeconds is the timestamp of a backup's name up to its seconds:
// ISO 8601 in UTC with ":" made "-"; "-<milliseconds>Z" follows, so names
// sort in time order.
const backupSeconds = "2006-01-02T15-04-05"

// The file operations Apply and Restore use; tests replace them to make a
// directory read-only even for root, who ignores permissions.
var (
	createTemp = os.CreateTemp
	writeFile  = atomicfile.Write
)

// ErrChanged is returned by Apply when the config changed after it was
// planned; nothing is written then.
var ErrChanged = errors.New("the config changed since the rewrite was planned; nothing was written — run the command again")

// BackupPath is where a backup of path taken at t goes.
func BackupPath(path string, t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s%s%s-%03dZ", path, backupInfix, t.Format(backupSeconds), t.Nanosecond()/int(time.Millisecond))
}

// isBackupStamp reports whether s is a timestamp BackupPath writes.
func isBackupStamp(s string) bool {
	secs, ms, ok := strings.Cut(s, "Z")
	if !ok || ms != "" || len(secs) != len(backupSeconds)+4 || secs[len(backupSeconds)] != '-' {
		return false
	}
	if _, err := time.Parse(backupSeconds, secs[:len(backupSeconds)]); err != nil {
		return false
	}
	for _, c := range secs[len(backupSeconds)+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Apply writes the planned config: first a byte-for-byte backup of the
// file as it is to <config>.backup-<timestamp> (never over an existing
// file), then the rewritten config, atomically, with its permissions kept
// (through a symbolic link, the file it points to is rewritten); a config
// with no write permission is refused, not replaced. Without
// the backup on disk nothing is changed; if the config cannot be written,
// the backup is taken back and the config is as it was. It returns the
// backup's path.
func Apply(p *Plan, now time.Time) (string, error) {
	target, err := filepath.EvalSymlinks(p.Config.Path)
	if err != nil {
		return "", err
	}
	if err := checkWritable(target, p.Config.Path); err != nil {
		return "", err
	}
	current, err := os.ReadFile(target)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(current, p.Original) {
		return "", ErrChanged
	}
	backup, err := writeBackup(p.Config.Path, current, now)
	if err != nil {
		return "", fmt.Errorf("could not back up %s, so it was not changed: %w", p.Config.Path, err)
	}
	if err := writeFile(target, p.Updated, 0o600); err != nil {
		os.Remove(backup)
		return "", fmt.Errorf("could not rewrite %s, which is unchanged: %w", p.Config.Path, err)
	}
	return backup, nil
}

// writeBackup writes data to a new backup of path: a synced temporary
// file, linked to the backup's name only if no file has it. A name
// already taken moves the timestamp on by a millisecond.
func writeBackup(path string, data []byte, now time.Time) (string, error) {
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, "."+filepath.Base(path)+".backup-tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	for range 1000 {
		name := BackupPath(path, now)
		err := os.Link(tmp.Name(), name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		now = now.Add(time.Millisecond)
	}
	return "", fmt.Errorf("no free backup name for %s", path)
}

// Backups returns the backups of path, oldest first.
func Backups(path string) ([]string, error) {
	matches, err := filepath.Glob(globEscape(path) + backupInfix + "*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if isBackupStamp(strings.TrimPrefix(m, path+backupInfix)) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// globEscape escapes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NoBackupError says that no config had a backup to restore.
type NoBackupError struct {
	Checked []string
}

// Error implements error.
func (e *NoBackupError) Error() string {
	return fmt.Sprintf("no backup to restore: checked %s for %s* files that reelier install writes", joinPaths(e.Checked), backupInfix)
}

// Restore puts back the newest backup of the first candidate config that
// has one, byte for byte and atomically, and leaves the backup in place.
// It returns the config and the backup, or a *NoBackupError naming every
// config it checked.
func Restore(candidates []Config) (Config, string, error) {
	var checked []string
	for _, c := range candidates {
		backups, err := Backups(c.Path)
		if err != nil {
			return Config{}, "", err
		}
		if len(backups) == 0 {
			checked = append(checked, c.Path)
			continue
		}
		newest := backups[len(backups)-1]
		data, err := os.ReadFile(newest)
		if err != nil {
			return Config{}, "", err
		}
		target := c.Path
		if real, err := filepath.EvalSymlinks(c.Path); err == nil {
			target = real
		}
		if err := checkWritable(target, c.Path); err != nil {
			return Config{}, "", err
		}
		if err := writeFile(target, data, 0o600); err != nil {
			return Config{}, "", fmt.Errorf("could not restore %s from %s: %w", c.Path, newest, err)
		}
		return c, newest, nil
	}
	return Config{}, "", &NoBackupError{Checked: checked}
}

// checkWritable refuses a config whose file is read-only: its owner took
// the write permission away, and a rename over it (which the directory
// would allow) would not respect that. A file that does not exist yet is
// fine.
func checkWritable(target, path string) error {
	info, err := os.Stat(target)
	if err != nil || info.Mode().Perm()&0o200 != 0 {
		return nil
	}
	return fmt.Errorf("%s is read-only (mode %04o), so nothing was changed; make it writable (chmod u+w) and run the command again", path, info.Mode().Perm())
}
