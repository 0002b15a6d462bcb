// Package format prints a parsed skill back to canonical SKILL.md bytes.
//
// The printer is the inverse of package grammar: preamble, interludes and
// trailing Markdown are copied byte for byte, and each step block is
// printed in one canonical shape — header with an em dash and without
// indentation, then intent, action, asserts, binds and effect, one line
// each, with any prose lines kept above the bullet they preceded. Printing is idempotent, and
// parsing the output yields the same tree as parsing the input.
package format
