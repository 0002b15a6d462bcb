package grammar

import (
	"fmt"

	"github.com/reelier/reelier/lang/ast"
)

// Rejection codes: the stable names of the parser's rules. SPEC.md lists
// each with its message; a contract test holds the two together.
const (
	CodeMissingFence           = "missing_fence"
	CodeUnclosedFence          = "unclosed_fence"
	CodeFrontmatterLine        = "malformed_frontmatter_line"
	CodeUnsupportedFrontmatter = "unsupported_frontmatter"
	CodeDuplicateKey           = "duplicate_frontmatter_key"
	CodeFrontmatterTooLarge    = "frontmatter_too_large"
	CodeMissingName            = "missing_name"
	CodeMissingDescription     = "missing_description"
	CodeNoSteps                = "no_steps"
	CodeStepHeader             = "malformed_step_header"
	CodeStepSequence           = "step_sequence"
	CodeUnknownField           = "unknown_step_field"
	CodeMissingField           = "missing_step_field"
	CodeDuplicateField         = "duplicate_step_field"
	CodeMalformedAction        = "malformed_action"
	CodeMissingTool            = "missing_tool"
	CodeInvalidJSON            = "invalid_json_args"
	CodeJSONTooDeep            = "json_too_deep"
	CodeUnknownAssert          = "unrecognized_assert"
	CodeUnknownBind            = "unrecognized_bind"
	CodeExprTooLong            = "expression_too_long"
	CodeJSONPathTooLong        = "json_path_too_long"
	CodeReservedBind           = "reserved_bind_name"
	CodeBindRegex              = "invalid_bind_regex"
	CodeAssertRegex            = "invalid_assert_regex"
	CodeInvalidEffect          = "invalid_effect"
	CodeSelection              = "invalid_selection"
	CodeTooManyProblems        = "too_many_problems"
	CodeFileTooLarge           = "file_too_large"

	CodeMalformedServer         = "malformed_server"
	CodeEmptyServerCommand      = "empty_server_command"
	CodeDuplicateServer         = "duplicate_server"
	CodeDuplicateServersSection = "duplicate_servers_section"
	CodeServerControl           = "server_control_character"
)

// Rule pairs a rejection code with the message it produces, with `…`
// standing for the variable part. SPEC.md's rejection table must list
// exactly these.
type Rule struct {
	Code    string
	Message string
}

// Rules lists every rejection the parser can produce, in document order.
var Rules = []Rule{
	{CodeMissingFence, msgMissingFence},
	{CodeUnclosedFence, msgUnclosedFence},
	{CodeFrontmatterLine, fmt.Sprintf(msgFrontmatterLine, "…")},
	{CodeUnsupportedFrontmatter, fmt.Sprintf(msgUnsupportedFrontmatter, "…")},
	{CodeDuplicateKey, "Duplicate frontmatter key '…' (first at line …) — a key may appear once"},
	{CodeFrontmatterTooLarge, fmt.Sprintf(msgFrontmatterTooLarge, "…")},
	{CodeMissingName, fmt.Sprintf(msgMissingKey, "name")},
	{CodeMissingDescription, fmt.Sprintf(msgMissingKey, "description")},
	{CodeNoSteps, msgNoSteps},
	{CodeStepHeader, fmt.Sprintf(msgStepHeader, "…")},
	{CodeStepSequence, "Expected step … but found step … — steps must be numbered sequentially from 1"},
	{CodeUnknownField, fmt.Sprintf(msgUnknownField, "…")},
	{CodeMissingField, "Step is missing required '…' field"},
	{CodeDuplicateField, "Duplicate '…' field in step"},
	{CodeMalformedAction, fmt.Sprintf(msgMalformedAction, "…")},
	{CodeMissingTool, msgMissingTool},
	{CodeInvalidJSON, fmt.Sprintf(msgInvalidJSON, "…")},
	{CodeJSONTooDeep, msgJSONTooDeep},
	{CodeUnknownAssert, fmt.Sprintf(msgUnknownAssert, "…")},
	{CodeUnknownBind, fmt.Sprintf(msgUnknownBind, "…")},
	{CodeExprTooLong, fmt.Sprintf(msgExprTooLong, "…")},
	{CodeJSONPathTooLong, fmt.Sprintf(msgPathTooLong, "…")},
	{CodeReservedBind, fmt.Sprintf(msgReservedBind, "…")},
	{CodeBindRegex, fmt.Sprintf(msgBindRegex, "…")},
	{CodeAssertRegex, fmt.Sprintf(msgAssertRegex, "…")},
	{CodeInvalidEffect, fmt.Sprintf(msgInvalidEffect, "…")},
	{CodeSelection, fmt.Sprintf(msgSelection, "…")},
	{CodeTooManyProblems, msgTooManyProblems},
	{CodeFileTooLarge, fmt.Sprintf(msgFileTooLarge, "…")},
	{CodeMalformedServer, fmt.Sprintf(msgMalformedServer, "…")},
	{CodeEmptyServerCommand, fmt.Sprintf(msgEmptyServerCommand, "…")},
	{CodeDuplicateServer, fmt.Sprintf(msgDuplicateServer, "…")},
	{CodeDuplicateServersSection, msgDuplicateServersSection},
	{CodeServerControl, fmt.Sprintf(msgServerControl, "…")},
}

// The message texts. Those the format specification quotes are kept word
// for word; tools and users match on them.
const (
	msgMissingFence           = "SKILL.md must start with a '---' frontmatter fence"
	msgUnclosedFence          = "Frontmatter fence '---' was never closed"
	msgFrontmatterLine        = "Malformed frontmatter line: %s"
	msgUnsupportedFrontmatter = "Frontmatter holds YAML outside the Agent Skills subset: %s"
	msgDuplicateKey           = "Duplicate frontmatter key '%s' (first at line %d) — a key may appear once"
	msgMissingKey             = "Frontmatter is missing required field '%s'"
	msgNoSteps                = "No '### Step N — Title' headers found in skill body"
	msgStepHeader             = "Malformed step header, expected '### Step N — Title': %s"
	msgStepSequence           = "Expected step %d but found step %d — steps must be numbered sequentially from 1"
	msgUnknownField           = "Unrecognized step field, expected one of intent/action/assert/bind/effect: %s"
	msgMissingField           = "Step is missing required '%s' field"
	msgDuplicateField         = "Duplicate '%s' field in step"
	msgMalformedAction        = "Malformed action line, expected '<tool> <json-args>', got: %s"
	msgMissingTool            = "Action line is missing a tool name"
	msgInvalidJSON            = "Action args are not valid JSON: %s"
	msgUnknownAssert          = "Unrecognized assert expression: %s"
	msgUnknownBind            = "Unrecognized bind expression: %s"
	msgReservedBind           = "Bind name '%s' is reserved for the computed date template vars ({{today}}, {{today-Nd}}, {{today+Nd}}) and cannot be used as a bind name"
	msgBindRegex              = "Invalid regex in bind: %s"
	msgAssertRegex            = "Invalid regex in assert: %s"
	msgInvalidEffect          = "Invalid effect %s — must be one of read, idempotent-write, destructive"
	msgSelection              = "Invalid selection: %s"

	msgMalformedServer         = "Malformed server line, expected '- `name`: `command` (tools: a, b)': %s"
	msgEmptyServerCommand      = "Server '%s' has an empty command"
	msgDuplicateServer         = "Duplicate server '%s' — each server in the Servers section needs its own name"
	msgDuplicateServersSection = "Duplicate '## Servers' section — list every server in the first one"
	msgServerControl           = "Server line holds %s, a control, line-break or bidi character — a server's name, command, tools and headers may not"
)

// StepKeys is the closed set of bullet keys inside a step, in canonical order.
var StepKeys = []string{"intent", "action", "assert", "bind", "effect"}

// effectNames are the values an effect may take, for did-you-mean.
var effectNames = []string{string(ast.EffectRead), string(ast.EffectIdempotentWrite), string(ast.EffectDestructive)}
