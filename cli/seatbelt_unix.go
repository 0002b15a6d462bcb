//go:build unix

package cli

import "syscall"

// handOff replaces this process with prog (argv and env as given): the
// same PID, the same standard streams. It returns only when the exec
// fails.
func handOff(prog string, argv, env []string) error {
	return errHandOff(prog, syscall.Exec(prog, argv, env))
}
