// Package grammar parses SKILL.md files into the typed tree of package ast.
//
// The document is cut into frontmatter, verbatim Markdown and step blocks
// by the line rules of the format (see SPEC.md); goldmark decides which
// `### Step` lines in verbatim Markdown are real headings (not lines inside
// a fenced code block). Each one-line language — the frontmatter line, the
// step bullet, the action line, assert and bind expressions and template
// holes — is a participle grammar over a small hand-written lexer.
//
// Parsing never panics, and it reports every problem it can find, not just
// the first, as ast.Diagnostics positioned in the file — up to a bound.
// A skill comes from anyone, so the parser's work is bounded (limits.go):
// json paths, assert and bind expressions, argument nesting, the tokens of
// a line, the frontmatter YAML reads and the number of problems reported
// all have a limit, and crossing one is a rejection at that place
// (SPEC.md §8). Columns on long lines that are not all ASCII are counted
// from checkpoints (colIndex), not from the line's start.
package grammar
