package agentcfg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The scopes a Claude Code MCP config has.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Config is one agent MCP config file.
type Config struct {
	Path  string
	Scope string // ScopeProject or ScopeUser
	// Agent is the Name of the agent in Agents the file belongs to;
	// "" is Claude Code.
	Agent string
}

// Candidates returns where Claude Code keeps MCP configs, in the order
// they are detected: the project's .mcp.json in dir, then the user's
// ~/.claude.json in home (skipped when home is "").
func Candidates(dir, home string) []Config {
	out := []Config{{Path: filepath.Join(dir, ".mcp.json"), Scope: ScopeProject, Agent: "claude"}}
	if home != "" {
		out = append(out, Config{Path: filepath.Join(home, ".claude.json"), Scope: ScopeUser, Agent: "claude"})
	}
	return out
}

// NoConfigError says that none of the candidate configs exists.
type NoConfigError struct {
	// Agent is the title of the agent whose configs were looked for.
	Agent   string
	Checked []string
}

// Error implements error.
func (e *NoConfigError) Error() string {
	return fmt.Sprintf("no %s MCP config found (checked %s)", e.Agent, joinPaths(e.Checked))
}

// Detect returns the first candidate config that exists, or a
// *NoConfigError naming every path it checked.
func Detect(candidates []Config) (Config, error) {
	var checked []string
	title := Agents[0].Title
	for _, c := range candidates {
		title = agentOf(c).Title
		_, err := os.Stat(c.Path)
		switch {
		case err == nil:
			return c, nil
		case !errors.Is(err, fs.ErrNotExist):
			return Config{}, err
		}
		checked = append(checked, c.Path)
	}
	return Config{}, &NoConfigError{Agent: title, Checked: checked}
}

// joinPaths renders paths as "a and b" or "a, b and c".
func joinPaths(paths []string) string {
	switch len(paths) {
	case 0:
		return "nothing"
	case 1:
		return paths[0]
	}
	out := paths[0]
	for _, p := range paths[1 : len(paths)-1] {
		out += ", " + p
	}
	return out + " and " + paths[len(paths)-1]
}
