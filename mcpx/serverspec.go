package mcpx

import (
	"context"
	"path"
	"strings"

	"github.com/google/shlex"
)

// ServerSpec is one MCP server to start, read once where a --wrap flag or
// a skill's Servers section is read: a command line run as a child
// process, or the http:// or https:// URL of a remote server with the
// request headers to send it. Exactly one of Command and URL is set; the
// text as given is kept in it whole (a command is split with shell rules
// only when it starts).
type ServerSpec struct {
	// Name labels the server's stderr lines ("[name] …"); empty means
	// ServerLabel of the command or URL.
	Name string
	// Command is the command line of a local server.
	Command string
	// URL is the address of a remote server, as written.
	URL string
	// Headers are sent to a remote server with every request, values as
	// written ($VAR expanded at start; see Header). A command has none.
	Headers []Header
}

// ParseServer reads a --wrap value (or a Servers entry's command): a URL
// when it starts with http:// or https:// (in any case, after spaces),
// else a command.
func ParseServer(raw string) ServerSpec {
	if IsURL(raw) {
		return ServerSpec{URL: raw}
	}
	return ServerSpec{Command: raw}
}

// Remote reports a server given by URL.
func (s ServerSpec) Remote() bool { return s.URL != "" }

// String is the server as it was given: its URL or its command line.
func (s ServerSpec) String() string {
	if s.Remote() {
		return s.URL
	}
	return s.Command
}

// Label is the server's name for its stderr lines: Name, else ServerLabel.
func (s ServerSpec) Label() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Remote() {
		return urlLabel(s.URL)
	}
	return commandLabel(s.Command)
}

// specs reads Start's --wrap values with opts.Names and opts.Headers.
func specs(wrap []string, opts Options) []ServerSpec {
	out := make([]ServerSpec, len(wrap))
	for k, w := range wrap {
		out[k] = ParseServer(w)
		out[k].Headers = opts.headers(k)
		if k < len(opts.Names) {
			out[k].Name = opts.Names[k]
		}
	}
	return out
}

// Start starts every --wrap value (a command or a URL; see ParseServer)
// with opts.Names and opts.Headers by index, as StartServers does.
func Start(ctx context.Context, wrap []string, opts Options) (*Router, error) {
	return StartServers(ctx, specs(wrap, opts), opts)
}

// Program is what a local server's command runs: the last path element
// of its first word, without ".exe" ("npx", "reelier", "python3"); "" for
// a remote server or a command that does not split.
func (s ServerSpec) Program() string {
	if s.Remote() {
		return ""
	}
	argv, err := shlex.Split(s.Command)
	if err != nil || len(argv) == 0 {
		return ""
	}
	return strings.TrimSuffix(path.Base(strings.ReplaceAll(argv[0], `\`, "/")), ".exe")
}

// Host is a remote server's host and port, never its user information,
// path or query; "" for a command.
func (s ServerSpec) Host() string {
	if !s.Remote() {
		return ""
	}
	return urlLabel(s.URL)
}

// MockFail is the --fail value of a `reelier mock` command (the failure
// it injects, STEP[=KIND]); "" for any other server or a mock without it.
func (s ServerSpec) MockFail() string {
	if !s.IsMock() {
		return ""
	}
	argv, _ := shlex.Split(s.Command)
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, "--fail="); ok {
			return v
		}
		if a == "--fail" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// IsMock reports a server that is `reelier mock`: its program is reelier
// and its first argument that is not a flag is the mock subcommand. Such
// a server serves recordings back; a run against it checked the skill
// against what was recorded, not against a live server.
func (s ServerSpec) IsMock() bool {
	if s.Program() != "reelier" {
		return false
	}
	argv, _ := shlex.Split(s.Command)
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a == "mock"
	}
	return false
}
