package mcpx

import "context"

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
