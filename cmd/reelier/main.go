// Command reelier records what an AI agent does through its MCP tools,
// compiles the trace into a SKILL.md, replays it without an LLM and writes
// receipts; it is also the toolchain (parser, formatter) for SKILL.md.
//
// The commands themselves are package cli; this program only runs them.
package main

import (
	"os"

	"github.com/reelier/reelier/cli"
)

func main() { os.Exit(cli.Main()) }
