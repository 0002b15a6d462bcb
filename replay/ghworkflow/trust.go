package ghworkflow

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/replay/skillservers"
)

// Trust applies reelier run's trust rule to the servers the plan's skills
// record: they go into the workflow only when trusted before, trusted now
// (trust, --servers-from-skill), or confirmed at a prompt read from stdin
// when it is a terminal (ask). A refusal is a usage error.
func (plan *Plan) Trust(trust bool, stdin io.Reader, stderr io.Writer, ask bool) error {
	var skills []*skillservers.Skill
	for _, s := range plan.Skills {
		if len(s.Skill.Servers) > 0 {
			skills = append(skills, &skillservers.Skill{Path: s.Path, Skill: s.Skill})
		}
	}
	if len(skills) == 0 {
		return nil
	}
	topts := skillservers.TrustOptions{Trust: trust, Stderr: stderr}
	if ask {
		topts.Confirm = func(list string) bool {
			errw := stderr
			fmt.Fprint(errw, list)
			fmt.Fprint(errw, "The workflow will start these commands on every run. Write them into it, and remember that you trust them? [y/N] ")
			answer, _ := bufio.NewReader(stdin).ReadString('\n')
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "y", "yes":
				return true
			}
			return false
		}
	}
	err := skillservers.Trust(skills, topts)
	var refused *skillservers.RefusedError
	switch {
	case errors.As(err, &refused):
		return exitstatus.Usagef("%s", refused.Msg)
	case err != nil:
		return exitstatus.Usagef("%v", err)
	}
	return nil
}
