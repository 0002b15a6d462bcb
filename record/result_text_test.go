package record_test

import (
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// recordedText reads a recorded result the way the compiler and a replay
// observe it: its body text, whether it is an error result, and whether
// it is an MCP tool result at all.
func recordedText(r *trace.Result) (text string, isError bool, ok bool) {
	res, err := tool.ParseToolResult(r.Body)
	if err != nil {
		return "", false, false
	}
	return res.Text(), res.IsError, true
}
