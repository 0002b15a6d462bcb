package session

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
)

// Host is an agent whose session history Reelier reads. Adding a host is
// one entry in Hosts: its folders, how its session files are told apart,
// and its reader.
type Host struct {
	// Name is how `reelier scan --host` names it.
	Name string
	// Dirs are the folders the host keeps its sessions in, from the home
	// folder and the environment (which may move them).
	Dirs func(home string, getenv func(string) string) []string
	// IsSession reports whether a file is one of the host's sessions,
	// from its path and its first bytes (up to 8 KB).
	IsSession func(path string, prefix []byte) bool
	// Read reads one session, with Read's contract: bad lines counted,
	// never fatal; Keep for a trace; memory bounded without it.
	Read func(r io.Reader, opts Options) (*Session, error)
	// Fallback marks the host a file goes to when no other host's
	// IsSession claims it (Claude Code: any JSON-lines file).
	Fallback bool
}

// Hosts are the agents Reelier reads the history of, in the order scan
// reports them.
var Hosts = []Host{
	{Name: "claude", Dirs: ClaudeDirs, IsSession: IsClaudeSession, Read: Read, Fallback: true},
	{Name: "codex", Dirs: CodexDirs, IsSession: IsCodexSession, Read: ReadCodex},
	{Name: "gemini", Dirs: GeminiDirs, IsSession: IsGeminiSession, Read: ReadGemini},
}

// HostNamed finds a host of the table by name.
func HostNamed(hosts []Host, name string) (Host, bool) {
	for _, h := range hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// HostNames lists the table's host names.
func HostNames(hosts []Host) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = h.Name
	}
	return out
}

// Sniff picks the host whose session a file is: the first host that is
// not a fallback and claims it, else the first fallback that does.
func Sniff(hosts []Host, path string, prefix []byte) (Host, bool) {
	for _, fallback := range []bool{false, true} {
		for _, h := range hosts {
			if h.Fallback == fallback && h.IsSession != nil && h.IsSession(path, prefix) {
				return h, true
			}
		}
	}
	return Host{}, false
}

// ClaudeDirs is where Claude Code keeps its transcripts:
// $CLAUDE_CONFIG_DIR/projects when that is set, else ~/.claude/projects.
func ClaudeDirs(home string, getenv func(string) string) []string {
	if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return []string{filepath.Join(dir, "projects")}
	}
	return []string{filepath.Join(home, ".claude", "projects")}
}

// IsClaudeSession reports whether a file could be a Claude Code
// transcript: a *.jsonl file that is empty or opens with a JSON object.
func IsClaudeSession(path string, prefix []byte) bool {
	if !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	p := bytes.TrimLeft(prefix, " \t\r\n\ufeff")
	return len(p) == 0 || p[0] == '{'
}
