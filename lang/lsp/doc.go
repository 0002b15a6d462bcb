// Package lsp is the language server for SKILL.md files (`reelier lsp`):
// the parser, the linter and the printer of this module, over the Language
// Server Protocol, so that any LSP editor knows the format as well as the
// command line does.
//
// The server is thin. server.go wires protocol methods to features, and
// every feature is a plain function of a Document and a position in its
// own file: Diagnostics, Format, Completion, Hover, Definition, References,
// PrepareRename and Rename, Symbols, CodeActions, Folding and
// SemanticTokens. Features work in the parser's byte offsets; Mapper is the
// one place where offsets and the protocol's UTF-16 positions meet.
//
// A Store keeps each open document at its latest version. Documents are
// immutable: a change (incremental or whole) makes a new version, which
// is parsed on first use by re-parsing only the steps the edit touched
// (grammar.Reparse) and linted with the .reelier/lint.toml that applies to
// its directory. Diagnostics are published when a document is opened or
// saved and, debounced, when typing pauses.
//
// The protocol types and the JSON-RPC connection come from
// go.lsp.dev/protocol and go.lsp.dev/jsonrpc2; the framing in front of the
// connection is this package's own (transport.go), so that a malformed
// message is answered with a JSON-RPC error and the session goes on, while
// a frame that cannot be read past ends it with a FrameError saying why.
package lsp
