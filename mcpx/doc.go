// Package mcpx is the MCP client side shared by the recording proxy and
// MCP-backed replay: it starts the --wrap'd downstream servers, builds the
// one routing table that maps exposed tool names to them, and maps MCP
// tool results to replay Observations.
//
// Name resolution has a single source, ExposedNames: downstreams are taken
// in --wrap order, the control tool names are reserved first, and a tool
// whose name is already taken is exposed as "<index>_<name>" with a
// warning on stderr. Recording and replay both build their table with it
// from the same --wrap list, so a name in a trace resolves to the same
// tool on replay.
//
// The client connection to each downstream is tapped (read-only) so that
// the recorder can keep the downstream's exact JSON for tool definitions
// and results, which the SDK's types would otherwise round off.
//
// A downstream's stdout is read through a FrameReader, which passes the
// SDK only lines it can read: stray output is shown on stderr under the
// server's name and skipped, and a response over Options.MaxMessage (64
// MiB by default) fails its call instead of the connection. Calls may be
// bounded by Options.CallTimeout.
package mcpx
