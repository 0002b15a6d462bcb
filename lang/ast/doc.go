// Package ast declares the typed syntax tree of a SKILL.md file.
//
// A Skill is frontmatter, a verbatim preamble, numbered steps and a verbatim
// trailing section. Every node records where it came from as a Range of
// byte offsets with derived 1-based lines and byte columns, so that
// diagnostics, hover, go-to-definition and quick fixes never re-scan text.
//
// The package holds data and small accessors only. Parsing lives in package
// grammar and printing in package format.
package ast
