//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package push

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLockFile takes an exclusive flock(2) on f without waiting; false
// means another holder has it. It excludes, and is excluded by,
// github.com/gofrs/flock's lock on the same file (what earlier versions
// took).
func tryLockFile(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lockFile takes an exclusive flock(2) on f, waiting for it.
func lockFile(f *os.File) error { return flock(f, unix.LOCK_EX) }

// unlockFile releases the lock (closing f releases it too).
func unlockFile(f *os.File) error { return flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
