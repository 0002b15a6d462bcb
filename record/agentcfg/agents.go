package agentcfg

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Agent is an agent whose MCP server config install can rewrite: where
// it keeps the config and how the file is read. The agents here keep
// their servers under a top-level "mcpServers" object of JSON files, each
// server {"command", "args", "env", …} or a remote one by URL; an agent
// with another format brings its own Plan.
type Agent struct {
	// Name is the --agent value.
	Name string
	// Title names the agent in messages.
	Title string
	// Configs returns the agent's config files for a working directory
	// and a home directory, in the order they are detected; a user file
	// is left out when home is "". getenv reads the environment.
	Configs func(dir, home string, getenv func(string) string) []Config
	// JSONC is set when the agent reads its config with // and /* */
	// comments; install keeps them byte for byte.
	JSONC bool
	// Projects is set when a user config also holds per-project servers
	// under "projects"/<dir>/"mcpServers" (Claude Code's ~/.claude.json).
	Projects bool
	// AddHint says how to record one server without a config.
	AddHint string
	// Plan plans the rewrite of a config of another format than JSON
	// (data is the file's bytes); nil plans it as JSON, in mcpServers.
	Plan func(cfg Config, data []byte, reelier string) (*Plan, error)
}

// Agents is every agent install knows, --agent's values in this order.
var Agents = []Agent{
	{
		Name: "claude", Title: "Claude Code", Projects: true,
		Configs: func(dir, home string, _ func(string) string) []Config { return Candidates(dir, home) },
		AddHint: `run: claude mcp add <name> -- reelier mcp --wrap "<server command>"`,
	},
	{
		// The Codex CLI keeps its servers as [mcp_servers.<name>] tables
		// of a TOML file; PlanInstall plans it by its name (toml.go).
		Name: "codex", Title: "Codex CLI",
		Configs: CodexCandidates,
		AddHint: `add it to ~/.codex/config.toml as [mcp_servers.<name>] with command = "reelier" and args = ["mcp", "--wrap", "<server command>"]`,
	},
	{
		// The Gemini CLI reads its settings with strip-json-comments
		// (packages/cli/src/config/settings.ts) and keeps comments when
		// it rewrites them; $GEMINI_CLI_HOME stands in for the home.
		Name: "gemini", Title: "Gemini CLI", JSONC: true,
		Configs: func(dir, home string, getenv func(string) string) []Config {
			if h := getenv("GEMINI_CLI_HOME"); h != "" {
				home = h
			}
			return agentFiles("gemini", dir, home, filepath.Join(".gemini", "settings.json"), filepath.Join(".gemini", "settings.json"))
		},
		AddHint: `run: gemini mcp add <name> reelier mcp --wrap "<server command>"`,
	},
	{
		Name: "cursor", Title: "Cursor",
		Configs: func(dir, home string, _ func(string) string) []Config {
			return agentFiles("cursor", dir, home, filepath.Join(".cursor", "mcp.json"), filepath.Join(".cursor", "mcp.json"))
		},
		AddHint: `add it to .cursor/mcp.json as {"command": "reelier", "args": ["mcp", "--wrap", "<server command>"]}`,
	},
}

// agentFiles is a project config under dir and a user config under home.
func agentFiles(agent, dir, home, project, user string) []Config {
	out := []Config{{Path: filepath.Join(dir, project), Scope: ScopeProject, Agent: agent}}
	if home != "" {
		out = append(out, Config{Path: filepath.Join(home, user), Scope: ScopeUser, Agent: agent})
	}
	return out
}

// LookupAgent returns the agent named name.
func LookupAgent(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// AgentNames lists the --agent values, "claude, codex, gemini or cursor".
func AgentNames() string {
	names := make([]string, len(Agents))
	for i, a := range Agents {
		names[i] = a.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// agentOf is the agent a config belongs to; a Config without one is
// Claude Code's, as every config was before there were others.
func agentOf(cfg Config) Agent {
	if a, ok := LookupAgent(cfg.Agent); ok {
		return a
	}
	return Agents[0]
}

// blankComments returns a copy of data with every // and /* */ comment
// outside a string replaced by spaces (line breaks kept), so the copy
// parses as JSON and every byte offset in it is the same in data. An
// unclosed block comment runs to the end, as strip-json-comments has it.
func blankComments(data []byte) []byte {
	out := []byte(nil)
	blank := func(from, to int) {
		if out == nil {
			out = append([]byte(nil), data...)
		}
		for k := from; k < to; k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
	}
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			end := i + 2
			for end < len(data) && data[end] != '\n' {
				end++
			}
			blank(i, end)
			i = end
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := len(data)
			if j := bytes.Index(data[i+2:], []byte("*/")); j >= 0 {
				end = i + 2 + j + 2
			}
			blank(i, end)
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return data
	}
	return out
}
