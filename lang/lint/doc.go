// Package lint finds problems in skills before they run: a variable used
// before any step binds it, a step that checks nothing, an array index that
// drifts, a date that should move with the run, a destructive step
// labelled read, a secret pasted into arguments.
//
// A Rule is a value — a lower_snake name, a one-line title, a body of
// documentation, a category, a default severity and a function over the
// typed tree of package ast — and every rule lives in its own file with its
// own directory of cases under testdata. A Driver runs the enabled rules
// over a parsed File and returns ast.Diagnostics with ranges and
// SuggestedFixes; which rules run and how severe their findings are is the
// driver's configuration (Config, or a .reelier/lint.toml file), never the
// rule's. Fix applies the suggested fixes, re-parses and re-formats, and
// never keeps a result that does not parse.
//
// A finding is silenced by an HTML comment on the line before it:
//
//	<!-- reelier:ignore unused_bind drift_index -->
//
// The same code serves the command line (reelier lint), the language
// server and the MCP tool surface; docs/lint.md is generated from the rules
// (see TestDocs).
package lint
