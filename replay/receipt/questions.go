package receipt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reelier/reelier/replay/runlog"
)

// maxQuestionLines bounds the lines an open-questions note lists.
const maxQuestionLines = 10

// OpenQuestionsNote says how many open questions the skill that ran left
// unresolved and where: "3 open questions the compiler could not answer
// (lines 12, 30, 41)"; "" when there are none. A passed verdict does not
// vouch for what they ask.
func OpenQuestionsNote(qs []runlog.OpenQuestion) string {
	if len(qs) == 0 {
		return ""
	}
	noun := "open questions"
	if len(qs) == 1 {
		noun = "open question"
	}
	return fmt.Sprintf("%d %s the compiler could not answer (%s)", len(qs), noun, questionLines(qs))
}

// questionLines lists the questions' lines: "line 12", "lines 12, 30, 41",
// the first ten and how many more.
func questionLines(qs []runlog.OpenQuestion) string {
	var b strings.Builder
	if len(qs) == 1 {
		b.WriteString("line ")
	} else {
		b.WriteString("lines ")
	}
	for i, q := range qs[:min(len(qs), maxQuestionLines)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(q.Line))
	}
	if len(qs) > maxQuestionLines {
		fmt.Fprintf(&b, " and %d more", len(qs)-maxQuestionLines)
	}
	return b.String()
}
