// Command reelier records what an AI agent does through its MCP tools,
// compiles the trace into a SKILL.md, replays it without an LLM and writes
// receipts; it is also the toolchain (parser, formatter) for SKILL.md.
package main

import "os"

func main() { os.Exit(Main()) }
