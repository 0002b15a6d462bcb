package compile

import (
	"fmt"
	"hash/maphash"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

// step is one call on its way to becoming a skill step. Its flags are
// kept together at the end, so the struct has no padding between fields.
type step struct {
	n    int // 1-based step number
	tool string
	i    int // the call's index in the trace
	// argsHash identifies the recorded arguments, which are not kept: each
	// walk parses them again.
	argsHash uint64
	at       trace.Place // where the call is in the trace
	// resultLine is the trace line of the call's result, 0 when the trace
	// has none; resultAt is where it is, to read it again.
	resultLine int
	resultAt   trace.Place
	notes      []string // narration that preceded the call
	// holes are the argument leaves dataflow recovery replaced.
	holes []argHole
	// checks are the field asserts derived from a JSON result, lines the
	// `body contains` asserts derived from a text one; doc is set when
	// the result was JSON.
	checks []check
	lines  []string
	// readBack are the strings earlier writing steps sent as literals
	// that this step's result shows: each gets a `body contains` assert,
	// so a replay whose write did not take (the world already held
	// something else) fails where it reads it back.
	readBack []string
	// sent are the recorded values the step's holes replaced: a result
	// line or field that repeats one changes when the value does, so it
	// gets no value assert.
	sent []string
	// pickChks are the checks on the elements later steps picked from
	// this step's result, pickedEls those elements' paths; unsettled is
	// set when a pick bind waits for readPicks.
	pickChks  []check
	pickedEls []string
	// argsKind describes arguments that are not an object ("an array"),
	// and is empty for an object.
	argsKind string
	// binds are the dataflow binds this step's result feeds; each also
	// gets a `json.<path> is set` assert.
	binds []*binding
	// pre are the preconditions a later step's choice rested on: nothing
	// of what it created existed here (aggregate.go).
	pre   []*ast.SelectionAssert
	class *Classification
	// nAsserts is how many asserts the step got when it was built
	// (counted set): the summary counts them without building them a
	// second time (#20).
	nAsserts int
	counted  bool
	doc      bool
	// unchecked is set when the result had content and nothing to check.
	unchecked bool
	// proseFed is set when a later step sends words of this step's text
	// result: all its stable lines are checked, not just the first.
	proseFed  bool
	unsettled bool
	// ok is set when the result came back without an error.
	ok bool
}

// same reports whether a call met in a later walk is the one the first
// walk made the step from.
func (st *step) same(call *trace.Call, line int, seed maphash.Seed) bool {
	return st.i == call.I && st.at.Line == line && st.tool == call.Tool && st.argsHash == maphash.Bytes(seed, call.Args)
}

// argHole is an argument leaf that dataflow recovery replaced: with the
// hole {{whole}}, or with a composed string holding holes.
type argHole struct {
	ord      int // the leaf's position, as in argLeaf
	whole    string
	composed *ast.String
}

// pair is the first walk over the records: it makes one step per call,
// in call order. A result joins the call with its index i; notes join the
// next call (consecutive notes together). It also takes the meta record,
// and returns the notes after the last call on their own.
//
// A call no step can be made from is an error, but the walk goes on: a
// problem the trace reader finds anywhere in the file is reported first,
// as it is when the whole trace is read before compiling.
func (c *compiler) pair() (trailing []string, err error) {
	c.byI = stepIndex{}
	var notes []string
	var bad error
	err = c.src.walk(func(rec trace.Record, at trace.Place) error {
		line := at.Line
		c.records++
		c.sums = append(c.sums, at.Sum)
		switch rec := rec.(type) {
		case *trace.Meta:
			c.meta = rec
		case *trace.Note:
			if text := oneLine(rec.Text); text != "" {
				notes = append(notes, text)
			}
		case *trace.Call:
			if bad != nil {
				return nil
			}
			if err := checkTool(rec.Tool); err != nil {
				bad = &trace.LineError{Line: line, Field: "tool", Msg: err.Error()}
				return nil
			}
			leaves, kind, ok := rawArgLeaves(string(rec.Args), c.leaves[:0])
			argsKind := ""
			if ok && kind != '{' {
				argsKind = kindPhrase(kind)
			}
			if !ok {
				args, d := grammar.ParseArgs(string(rec.Args), ast.Pos{Line: 1, Column: 1}) // columns in messages count from 1
				if d != nil {
					bad = &trace.LineError{Line: line, Field: "args", Msg: d.Message}
					return nil
				}
				if _, ok := args.(*ast.Object); !ok {
					argsKind = describeValue(args)
				}
				leaves = argLeaves(args, c.leaves[:0])
			}
			c.leaves = leaves
			st := &step{n: len(c.steps) + 1, tool: rec.Tool, i: rec.I, argsHash: maphash.Bytes(c.seed, rec.Args), at: at, notes: notes, argsKind: argsKind}
			for _, l := range c.leaves {
				c.idx.want(l, st.n)
			}
			notes = nil
			c.steps = append(c.steps, st)
			c.byI.set(rec.I, st, len(c.steps))
		case *trace.Result:
			if st := c.byI.get(rec.I); st != nil {
				st.resultLine, st.resultAt = line, at
			}
		}
		return nil
	})
	if err == nil {
		err = bad
	}
	return notes, err
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
	if isOneLine(s) {
		return s
	}
	return oneLineSlow(s)
}

// oneLineSlow is oneLine, rune by rune.
func oneLineSlow(s string) string {
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

// isOneLine reports text oneLine returns as it is: printable ASCII
// whose spaces are single and inside it.
func isOneLine(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				return false
			}
		case c < 0x20 || c >= 0x7f:
			return false
		}
	}
	return true
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
