package compile

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/trace"
)

// step is one call on its way to becoming a skill step.
type step struct {
	n          int // 1-based step number
	call       *trace.Call
	line       int           // trace line of the call
	result     *trace.Result // nil when the trace has no result for the call
	resultLine int
	notes      []string // narration that preceded the call
	args       ast.Value
	// ok is set when the result came back without an error.
	ok bool
	// binds are the dataflow binds this step's result feeds; each also
	// gets a `json.<path> is set` assert.
	binds []*binding
	class Classification
}

// pair walks the records in file order and makes one step per call, in
// call order. A result joins the call with its index i; notes join the
// next call (consecutive notes together). Notes after the last call are
// returned on their own.
func pair(tr *trace.Trace) (steps []*step, byI map[int]*step, trailing []string, err error) {
	byI = map[int]*step{}
	var notes []string
	for k, rec := range tr.Records {
		line := tr.Lines[k]
		switch rec := rec.(type) {
		case *trace.Note:
			if text := oneLine(rec.Text); text != "" {
				notes = append(notes, text)
			}
		case *trace.Call:
			if err := checkTool(rec.Tool); err != nil {
				return nil, nil, nil, &trace.LineError{Line: line, Field: "tool", Msg: err.Error()}
			}
			st := &step{n: len(steps) + 1, call: rec, line: line, notes: notes}
			notes = nil
			steps = append(steps, st)
			byI[rec.I] = st
		case *trace.Result:
			if st := byI[rec.I]; st != nil {
				st.result, st.resultLine = rec, line
			}
		}
	}
	return steps, byI, notes, nil
}

// checkTool rejects a tool name an action line cannot carry: the tool is
// the run of non-blank characters before the arguments, and a value that
// starts with `{`, `[` or `"` reads as arguments with no tool.
func checkTool(tool string) error {
	if tool == "" {
		return fmt.Errorf("empty tool name; a skill action needs one")
	}
	if !utf8.ValidString(tool) {
		return fmt.Errorf("tool name %q is not valid UTF-8", tool)
	}
	for _, r := range tool {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("tool name %q contains blanks or control characters, which a skill action line cannot hold", tool)
		}
	}
	if strings.ContainsAny(tool[:1], `{["`) {
		return fmt.Errorf("tool name %q starts with %q, which a skill action line reads as arguments", tool, tool[:1])
	}
	return nil
}

// oneLine flattens text for a title, an intent or a question: every run of
// blanks, line breaks and control characters becomes one space, and the
// ends are trimmed.
func oneLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clip shortens s to at most n characters, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
