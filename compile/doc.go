// Package compile turns a recorded trace into a skill, deterministically:
// no model is asked anything, and the same trace always gives the same
// steps, binds, asserts, effects and open questions.
//
// Each call becomes one step, in call order; its result is the one with
// the same call index. A step's title and intent come from the notes just
// before the call. Dataflow recovery looks up every string (4+ characters)
// and number (4+ decimal characters) a call sends among the results
// recorded before it, through an index of only the values calls send, so
// compile time grows linearly with the trace; a hit becomes a bind and a
// `json.<path> is set` assert on the step that produced the value and a
// `{{name}}` hole where it is used. A recorded success gets `status ==
// 200`. The effect class comes from the verbs in the tool name and the
// server's tool annotations, under a trust ladder in which a hint can make
// a step more careful but never less.
//
// What the compiler will not guess becomes an open question in the skill
// and in the Summary: unnarrated calls, failed, missing, truncated or
// oversized results, unknown verbs, binds that read an array position,
// values whose keys no path can name, date, UUID and Unix-timestamp
// literals, literals several calls repeat, and narration after the last
// call. The skill is an *ast.Skill printed by package format; the compiler
// never writes Markdown itself.
package compile
