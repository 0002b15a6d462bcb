// Command echoserver is the MCP server of the A/B harness's proxy workload
// (internal/abbench): the Go test server (internal/mcptest) on stdio.
package main

import (
	"os"

	"github.com/reelier/reelier/internal/mcptest"
)

func main() { os.Exit(mcptest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
