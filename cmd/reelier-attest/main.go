// Command reelier-attest signs and verifies run records for reelier: it is
// what `reelier verify` and `reelier run --sign` run. It is a program of
// its own so that the signing stack (sigstore-go and what it links) is
// initialised only when something is signed or verified, never when any
// other reelier command starts. Install it beside reelier:
//
//	go install github.com/reelier/reelier/cmd/reelier-attest@latest
package main

import (
	"os"

	"github.com/reelier/reelier/replay/attest"
)

func main() {
	os.Exit(attest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
