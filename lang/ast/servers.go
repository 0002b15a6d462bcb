package ast

// Server is one MCP server a skill records: a bullet of the `## Servers`
// section of its preamble, written as a name, a colon, the command in
// backticks and an optional tool list: "- `memory`: `npx -y
// @modelcontextprotocol/server-memory` (tools: create_entities)". The section stays part of the preamble's text, which the printer keeps
// byte for byte; these nodes are what the parser read from it.
type Server struct {
	// Range covers the bullet line.
	Range Range
	// Name labels the server in messages; it is unique within the skill.
	Name      string
	NameRange Range
	// Command starts the server, split the way `--wrap` splits it.
	Command      string
	CommandRange Range
	// Tools are the names the server's tools were exposed and recorded
	// under, in the order written; empty when the bullet lists none.
	Tools []ServerTool
	// Headers are the request headers of a server given by URL, each
	// "Name: Value" as written in the bullet's "(headers: …)" list, the
	// value holding $VAR references to the environment rather than a
	// secret; empty when the bullet lists none.
	Headers []ServerHeader
}

// ServerHeader is one header of a server's header list.
type ServerHeader struct {
	Text  string
	Range Range
}

// ServerTool is one name of a server's tool list.
type ServerTool struct {
	Name  string
	Range Range
}

// Span implements Node.
func (s *Server) Span() Range { return s.Range }

// Offers reports whether the server lists the tool.
func (s *Server) Offers(tool string) bool {
	for _, t := range s.Tools {
		if t.Name == tool {
			return true
		}
	}
	return false
}

// ServerOf returns the first of the skill's servers that lists the tool,
// or nil.
func (s *Skill) ServerOf(tool string) *Server {
	for _, sv := range s.Servers {
		if sv.Offers(tool) {
			return sv
		}
	}
	return nil
}
