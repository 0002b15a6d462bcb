// Package session turns an agent's own session history into traces: the
// Claude Code transcripts under ~/.claude/projects/<project>/<id>.jsonl,
// the live stream `claude -p --output-format stream-json --verbose`
// prints, and the Gemini CLI's chat recordings and /chat save
// checkpoints under ~/.gemini/tmp/<project>/ (ReadGemini, gemini.go).
// Hosts is the table of agents; ReadAny reads a file with the reader of
// the host that claims it.
//
// Read streams a transcript a line at a time. It looks only at assistant
// lines (tool_use blocks) and user lines (tool_result blocks); system and
// result lines give the session's id and directory; every other line type
// is counted and ignored, and so are lines that are not JSON, a last line
// cut off mid-object and lines longer than a limit. Nothing in a
// transcript is fatal.
//
// Which calls replay is decided by default-deny (Classify): exactly the
// builtins http.get and http.post, and mcp__<server>__<tool> names, whose
// trace records the bare <tool> — the name a `reelier mcp --wrap` of that
// server exposes it under. Every other tool (Bash, Read, Edit, Task, …) is
// listed as skipped with its reason, and so is a replayable call whose
// result never appears: a missing result is never guessed.
//
// Trace writes the replayable calls as a trace in the recorder's format,
// call and result pairs in transcript order, with the agent's tool_use id
// on each call and "observed" in the meta record: "stream" for a
// transcript read from the harness's own output, "file" for one read from
// disk, which the session itself could have written and so is a
// self-report. Compile hands that trace to the unchanged compiler and says
// in the skill's preamble how its calls were observed.
//
// ReadCodex reads the Codex CLI's session rollout files
// ($CODEX_HOME/sessions/…/rollout-*.jsonl) into the same Session: the MCP
// calls whose CallToolResult Codex logged, the rest skipped with reasons,
// the tokens per model (codex.go; docs/history.md "The Codex CLI").
//
// Scan (package session/scan) walks a whole history with the same Read, so
// its verdict on a session is always what from-session would do with it.
package session
