// Package record is the recording proxy behind `reelier mcp`: one MCP
// server on stdio that fronts the --wrap'd downstream servers.
//
// Every downstream tool is exposed 1:1 — its name (prefixed only on a
// collision, by mcpx's routing table), description, input and output
// schemas and annotations, sent on as the downstream's own JSON — and so
// are its prompts, resources and resource templates. Calls always pass
// through. Three control tools start a recording, add notes to it and stop
// it; while one runs, each proxied tool call is written to the trace as a
// call record and a result record (redacted on the way to disk only; the
// agent gets the downstream's result untouched), with ms measured around
// the downstream call alone. Control tool calls, prompts and resources are
// never recorded.
package record
