// Package serve offers Reelier's own commands to a coding agent as an MCP
// server: the tools behind `reelier serve`.
//
// It is the opposite role from the recording proxy (package record): that
// one fronts other MCP servers to record their calls; this one fronts
// Reelier and wraps nothing. Each tool is a thin layer over the package
// that does the work:
//
//	reelier_scan          session/scan: replayable workflows in an agent's history
//	reelier_from_session  session + compile: a skill from one transcript
//	reelier_replay        runtime: a Level-0 replay and its run record
//	reelier_push          ledger/push: run records to a receipt ledger
//	reelier_lint          lint: findings for skill files
//	reelier_find_skill    the skills already in the working directory that
//	                      match a task description, ranked and explained
//
// Beside the tools, the same skills are offered through the MCP Skills
// extension (io.modelcontextprotocol/skills, declared under
// capabilities.extensions): skills/list and skills/get give each skill's
// frontmatter and a manifest of its files with SHA-256 digests, the files
// are skill:// resources read with resources/read, and
// resources/directory/read lists a skill's folders. A folder holding a
// SKILL.md is served whether or not it has Reelier steps (an ordinary
// Agent Skill is still a skill); skills_ext.go says what is left out.
//
// Rules every tool keeps:
//
//   - A replay always runs at Level 0. No input can raise it: the LLM is
//     never constructed from this surface.
//   - A tool that cannot do its job answers with an isError result whose
//     text says why: a missing or mistyped argument, an unknown tool name,
//     an unreadable file. A replay that ran and found a failing step is not
//     such a failure: its run record says passed: false.
//   - reelier_push answers with one of three outcomes, "ok",
//     "skipped-no-key" (REELIER_CLOUD_URL or REELIER_CLOUD_KEY unset; nothing
//     was sent) and "failed" (an isError result), never "ok" for a push that
//     did not complete.
//   - Paths are resolved against the server's working directory and
//     refused when they lead outside it, lexically or through a symbolic
//     link; files are then read and written through an os.Root on that
//     directory, by their names in it, so a link swapped in after the
//     check cannot lead a read or a write outside: skills are written
//     atomically inside the root (the temporary file created beside the
//     target, synced, renamed in the same folder), run records appended
//     through it, and the push state, its lock and the run history
//     reached through it (ledger/push Options.Root). Session transcripts
//     may also be read from the history directory the person who started
//     the server chose (by default ~/.claude/projects), and nothing is
//     ever written there.
//
// Transports: Serve runs on any MCP transport (stdio for `reelier serve`).
// Handler serves the streamable HTTP transport behind a bearer-token check;
// CheckBind decides whether an address may be listened on: loopback only,
// unless a token is configured.
package serve
