package main

import (
	"errors"
	"fmt"
)

// Exit codes, documented in the README, SPEC.md §14 and `reelier --help`.
const (
	exitOK          = 0   // success
	exitFailed      = 1   // a check did not hold (drift), a difference was found
	exitUsage       = 2   // bad usage or bad input: unparseable skill, unreadable file, missing inputs, a refused write
	exitTool        = 3   // a tool or the environment failed: a server crashed or timed out, a connection was refused, a record could not be written
	exitInterrupted = 130 // stopped by Ctrl-C or SIGTERM
)

// exitError carries an exit code out of a command. A nil err means the
// command already printed everything the user needs to see.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// silentExit ends a command with code after it has reported on its own.
func silentExit(code int) error { return &exitError{code: code} }

// usageErrorf reports a usage or input error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}
