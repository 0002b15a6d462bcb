//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// handOff runs prog as a child with this process's standard streams and
// returns its exit status to end the command with (there is no exec to
// replace the process with here).
func handOff(prog string, argv, env []string) error {
	c := exec.Command(prog, argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr, c.Env = os.Stdin, os.Stdout, os.Stderr, env
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return silentExit(exitOK)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return silentExit(ee.ExitCode())
	}
	return errHandOff(prog, err)
}
