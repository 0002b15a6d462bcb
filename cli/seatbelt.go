package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/policy"
)

// The seatbelt's engine and the hand-off to the program that holds it.
//
// The policy engine (policy/engine) links cel-go, whose packages Go would
// initialise in every process that links them. So the reelier program
// does not: a command that needs the engine — reelier mcp or reelier run
// under a policy file, reelier policy check, test and from-skill — hands
// its process to the reelier-seatbelt program (cmd/reelier-seatbelt),
// which is the same command line with the engine registered
// (SetPolicyEngine). On unix the hand-off is an exec: the same process,
// argv and environment, so an MCP host that started reelier mcp talks to
// the seatbelt program on the same pipes and never notices; elsewhere the
// program runs as a child with the same standard streams and its exit
// status is returned. A process with no policy file never looks for it.
const (
	// envSeatbelt names the reelier-seatbelt program to hand off to.
	envSeatbelt = "REELIER_SEATBELT"
	// seatbeltProgram is the program that holds the policy engine.
	seatbeltProgram = "reelier-seatbelt"
	// envHandedOff is set in the environment of a process started by a
	// hand-off; a process without the engine that finds it set refuses
	// to hand off again (the program found was not the seatbelt one),
	// and the seatbelt program removes it as it starts, so the servers
	// and commands it starts do not inherit it.
	envHandedOff = "REELIER_SEATBELT_HANDOFF"
	// installSeatbelt is how to get the program.
	installSeatbelt = "go install github.com/reelier/reelier/cmd/reelier-seatbelt@latest"
)

var (
	// policyEngine is the engine SetPolicyEngine registered; nil in the
	// reelier program.
	policyEngine policy.Engine
	// mayHandOff is set by Main: the process's own arguments are the
	// command line, so it may be handed to the seatbelt program. A
	// command run in-process (tests) never hands off.
	mayHandOff bool
)

// SetPolicyEngine registers the policy engine this process evaluates
// policies with; the reelier-seatbelt program calls it before Main. A
// process with an engine never hands off.
func SetPolicyEngine(e policy.Engine) { policyEngine = e }

// needEngine returns the policy engine that what (the policy's files, or
// a command) needs. Without one, it hands the process to the seatbelt
// program: on unix it returns only when that could not start; elsewhere
// it returns the program's exit status as an error to end the command
// with. A program that cannot be found fails closed: nothing runs, exit 2,
// and the message says how to install it.
func needEngine(what string) (policy.Engine, error) {
	if policyEngine != nil {
		return policyEngine, nil
	}
	if os.Getenv(envHandedOff) != "" {
		self, _ := os.Executable()
		return nil, usageErrorf("%s was started as the %s program but holds no policy engine, so nothing runs under %s: the program found ($%s, beside reelier or on PATH) is not %s (%s)",
			termtext.Line(self), seatbeltProgram, what, envSeatbelt, seatbeltProgram, installSeatbelt)
	}
	if !mayHandOff {
		return nil, usageErrorf("no policy engine in this process for %s", what)
	}
	prog, ok := findProgram(seatbeltProgram, envSeatbelt)
	if !ok {
		return nil, usageErrorf("%s needs the %s program, which holds the policy engine (CEL), and it was found neither beside reelier nor on PATH, so nothing runs: %s (or set %s to its path)",
			what, seatbeltProgram, installSeatbelt, envSeatbelt)
	}
	if p, err := exec.LookPath(prog); err == nil {
		prog = p // a name in REELIER_SEATBELT, found on PATH
	}
	env := append(os.Environ(), envHandedOff+"=1")
	return nil, handOff(prog, append([]string{prog}, os.Args[1:]...), env)
}

// policyWhat names a policy's files for needEngine's messages.
func policyWhat(files []string) string {
	q := make([]string, len(files))
	for k, f := range files {
		q[k] = termtext.Line(f)
	}
	if len(q) == 1 {
		return "the policy " + q[0]
	}
	return "the policy " + strings.Join(q, " and ")
}

// findProgram finds one of reelier's companion programs: the path in the
// environment variable envVar, else name beside this executable, else
// name on PATH.
func findProgram(name, envVar string) (string, bool) {
	if p := os.Getenv(envVar); p != "" {
		return p, true
	}
	file := name
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), file)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	return "", false
}

// seatbeltMain is what Main does first in a process with an engine: the
// hand-off's marker is removed, so that what this process starts (a
// wrapped server that is itself reelier mcp) may hand off in its turn.
func seatbeltMain() {
	if policyEngine != nil {
		os.Unsetenv(envHandedOff)
	}
}

// errHandOff words a hand-off that could not start.
func errHandOff(prog string, err error) error {
	return usageErrorf("could not start the %s program %s, so nothing runs: %v", seatbeltProgram, termtext.Line(prog), err)
}
