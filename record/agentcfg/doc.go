// Package agentcfg reads and rewrites an agent's MCP server config so
// that recording is one phrase away: `reelier install` fronts every local
// server with the recorder, `reelier uninstall` puts the config back.
//
// Claude Code keeps servers in the project's .mcp.json and in the user's
// ~/.claude.json (top-level "mcpServers", and "projects"/<dir>/
// "mcpServers"); Detect takes the first of those that exists. PlanInstall
// rewrites each local stdio server in place to run
// `<reelier> mcp --wrap "<its command line>"` under the same name, with
// its env and every other field kept; remote (url) servers are skipped and
// reported, and servers already fronted are left alone, so installing
// twice changes nothing. The rewrite edits only the bytes of the command
// and args values: member order, unknown fields and spacing elsewhere are
// the file's own.
//
// The Codex CLI keeps its servers in TOML (config.toml, [mcp_servers.<name>]);
// PlanInstall rewrites a .toml config the same way, splicing the new
// command and args into the byte ranges go-toml/v2's parser reports, so
// comments, key order and unknown keys stay as they were (toml.go).
//
// Apply writes a byte-for-byte backup, <config>.backup-<timestamp>, before
// it touches the config, and changes nothing when it cannot; Restore puts
// the newest backup back.
package agentcfg
