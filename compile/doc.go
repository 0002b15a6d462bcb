// Package compile turns a recorded trace into a skill, deterministically:
// no model is asked anything, and the same trace always gives the same
// steps, binds, asserts, effects and open questions.
//
// Each call becomes one step, in call order; its result is the one with
// the same call index. A step's title and intent come from the notes just
// before the call. Each result is read as the observation a replay will
// see (tool.ToolResult: json paths read structuredContent, body the
// text blocks).
//
// Dataflow recovery looks up every string and number a call sends — and
// the tokens and phrases inside its strings — among the results recorded
// before it, through an index of only the values calls send, so compile
// time grows linearly with the trace. A result does not count as holding
// what its own call sent (an echo); a redacted value is never looked up
// and becomes an input. A hit in a JSON document becomes a `json.<path>`
// bind, a hit in a text a `body match` bind whose pattern is derived from
// and verified against the recorded text; the argument gets a `{{name}}`
// hole, inside a longer string where the value was part of one. A bind
// that picks an element of a list is held to the element (its value and
// fields), or picks it by the field the step searched for.
//
// Every step with a result gets checks a replay can stand on: status, the
// type or shape of every value a later step takes, stable fields (value
// asserts) and volatile ones (type asserts), stable lines of a text. The
// effect class comes from the verbs in the tool name (the shared table in
// lang/verbs), the server's tool annotations and, step by step, what
// the call's own arguments say (a mode, an enum of verbs, a flag such as
// amend: true), and never understates.
//
// What the compiler will not guess becomes an open question in the skill
// and in the Summary; the rule that no literal an earlier result held is
// left without one is held by TestNoSilentLiteral. The skill is an
// *ast.Skill printed by package format; the compiler never writes Markdown
// itself.
package compile
