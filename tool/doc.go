// Package tool is the contract between a skill's steps and what they call:
// a Tool and the Registry of them by name, the Observation a call returns
// (what asserts and binds read), and ToolResult, which reads an MCP tool
// result into an Observation. The JSON value model every reader of a
// result shares is its sub-package jsondata. It sits at the bottom of the
// house: trace, compile, replay, mock and diff import it, and it imports
// nothing of the product but the typed tree's effect class (lang/ast).
package tool
