package cli

import "github.com/reelier/reelier/internal/exitstatus"

// Exit codes, documented in the README, SPEC.md §14 and `reelier --help`.
const (
	exitOK          = exitstatus.OK
	exitFailed      = exitstatus.Failed
	exitUsage       = exitstatus.Usage
	exitTool        = exitstatus.Tool
	exitInterrupted = exitstatus.Interrupted
)

// exitError carries an exit code out of a command.
type exitError = exitstatus.Error

// silentExit ends a command with code after it has reported on its own.
func silentExit(code int) error { return exitstatus.Silent(code) }

// usageErrorf reports a usage or input error (exit 2).
func usageErrorf(format string, args ...any) error { return exitstatus.Usagef(format, args...) }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int { return exitstatus.Code(err) }
