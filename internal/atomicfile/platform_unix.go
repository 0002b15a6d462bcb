//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// canSyncDir: a directory opened for reading can be fsynced.
const canSyncDir = true

// processGone reports whether no process with this id runs on this
// machine: signal 0 checks without sending anything. EPERM means the
// process exists under another user.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
