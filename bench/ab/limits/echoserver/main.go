// Command echoserver is the MCP server of the A/B harness's proxy workload
// (bench/ab): the Go test server (testkit/mcptest) on stdio.
package main

import (
	"os"

	"github.com/reelier/reelier/testkit/mcptest"
)

func main() { os.Exit(mcptest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
