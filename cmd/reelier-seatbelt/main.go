// Command reelier-seatbelt is reelier's whole command line with the
// policy engine linked: the seatbelt's CEL rules (policy/engine, cel-go)
// are parsed and evaluated here, and nowhere else. reelier hands a process
// to it when a command needs the engine — reelier mcp or reelier run with
// a policy file found or --policy given, reelier policy check, test and
// from-skill — by exec on unix (same process, same pipes), so that the
// reelier program itself never initialises CEL's packages: a process with
// no policy file starts as fast as it did before the seatbelt. Install it
// beside reelier:
//
//	go install github.com/reelier/reelier/cmd/reelier-seatbelt@latest
package main

import (
	"os"

	"github.com/reelier/reelier/cli"
	"github.com/reelier/reelier/policy/engine"
)

func main() {
	cli.SetPolicyEngine(engine.CEL{})
	os.Exit(cli.Main())
}
