//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || windows)

package push

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// errNoLock says pushes cannot take turns on this system.
var errNoLock = fmt.Errorf("file locks are not available on %s: %w", runtime.GOOS, errors.ErrUnsupported)

func tryLockFile(*os.File) (bool, error) { return false, errNoLock }
func lockFile(*os.File) error            { return errNoLock }
func unlockFile(*os.File) error          { return errNoLock }
