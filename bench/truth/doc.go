// Package truthbench measures whether a skill compiled from a real
// recording tells the truth when it is replayed against the real MCP
// servers it was recorded on.
//
// The bench is its test, TestTruthBench: a scripted agent (agent/, Node
// and the official MCP TypeScript SDK) records each workflow through
// `reelier mcp`, `reelier compile` turns the trace into a skill, and
// `reelier run` replays it in fresh, re-run and drifted worlds. Each
// replay is judged against what the same agent does in the same world:
// the calls the server received and the world the replay left. README.md
// describes the workflows, the scenarios and the verdicts.
package truth
