// Package mock is reelier mock: an MCP server that answers from
// recordings (trace files), so a skill, a lint rule or a heal can be
// tested offline and in CI.
//
// tools/list serves each recorded tool's definition as the trace's meta
// kept it (meta.servers[].toolDefs); a trace that predates toolDefs names
// its tools only (meta.servers[].tools, meta.toolAnnotations, its calls),
// and those are served with a permissive input schema and the annotations
// the meta declared. tools/call is answered with the recorded result of a
// recorded call of the same tool whose arguments match (Mode: exact by
// default, or loose; --ignore-arg paths left out); repeated calls get the
// recorded results in recorded order, per client session, and the last
// again once they run out. A call nothing matches gets an error result
// naming the nearest recorded call and the argument paths that differ; a
// tool never recorded, one naming the tools that were. Recorded values
// stay as redacted as the trace has them.
package mock
