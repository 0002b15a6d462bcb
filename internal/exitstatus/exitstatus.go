// Package exitstatus is how a reelier command's error carries the process
// exit status out of the package that found it: the statuses the README,
// SPEC.md §14 and `reelier --help` document, and an error that holds one.
package exitstatus

import (
	"errors"
	"fmt"
)

// The exit statuses.
const (
	OK          = 0   // success
	Failed      = 1   // a check did not hold (drift), a difference was found
	Usage       = 2   // bad usage or bad input: unparseable skill, unreadable file, missing inputs, a refused write
	Tool        = 3   // a tool or the environment failed: a server crashed or timed out, a connection was refused, a record could not be written
	Interrupted = 130 // stopped by Ctrl-C or SIGTERM
)

// Error carries an exit status out of a command. A nil Err means the
// command already printed everything the user needs to see.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Silent ends a command with code after it has reported on its own.
func Silent(code int) error { return &Error{Code: code} }

// Usagef reports a usage or input error (exit 2).
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// ToolErr reports err as a tool or environment failure (exit 3).
func ToolErr(err error) error { return &Error{Code: Tool, Err: err} }

// Code maps an error returned by a command to the process exit status: an
// Error's own, OK for nil, and Usage for any other error.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var ee *Error
	if errors.As(err, &ee) {
		return ee.Code
	}
	return Usage
}

// Severity orders exit statuses: interrupted over a tool error over bad
// input over a failed check over success.
func Severity(code int) int {
	switch code {
	case Interrupted:
		return 4
	case Tool:
		return 3
	case Usage:
		return 2
	case Failed:
		return 1
	}
	return 0
}
