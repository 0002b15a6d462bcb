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
//
// The proxy outlives its peers' faults: each forwarded call has a limit
// (Options.CallTimeout), and the agent's side (Transport) and each
// downstream's are read through an mcpx.FrameReader, so a line that is
// not a JSON-RPC message, or a message over Options.MaxMessage, costs an
// error reply or one failed call instead of the session.
//
// Over stdio, a plain tools/call for a local downstream's tool takes a
// fast path (fast.go): the two FrameReaders forward its request and
// response as bytes, without the SDK's sessions, and it is recorded
// through the same functions as the SDK path, to the same records.
// Anything unusual, and every call when Options.NoFastPath is set, goes
// through the SDK.
package record
