package grammar

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

// The Open questions section. A compiled skill ends with a level-2 heading
// `## Open questions` (any case) followed by one `- ` bullet per thing the
// compiler would not guess, `- Step N (tool): …` for a question about a
// step; `- (none)` when there is nothing to ask (SPEC.md §11). The section
// runs to the next Markdown heading or to the end of the file.
//
// A question is open until it is resolved: its bullet deleted, or checked
// off as a task (`- [x] …`). `- (none)`, blank lines, other text and
// fenced code are not questions.

// OpenQuestionsHeading is the text of the heading that opens the section.
const OpenQuestionsHeading = "Open questions"

// OpenQuestion is one unresolved question of a skill's Open questions
// section.
type OpenQuestion struct {
	// Text is the bullet's text, its marker (and an unchecked `[ ]`)
	// removed.
	Text string
	// Step is the number of the step the question names ("Step 3 (…): …");
	// 0 for a question about the skill as a whole.
	Step int
	// Range is the bullet's line, from its marker to its end.
	Range ast.Range
}

// OpenQuestions returns the unresolved questions of a parsed skill's Open
// questions section, in file order; none when the skill has no such
// section. It reads the skill's trailing text, which the parser keeps
// byte for byte, and never fails: a line it does not read as a question is
// not one.
func OpenQuestions(skill *ast.Skill) []OpenQuestion {
	tr := skill.Trailing
	if tr.Text == "" {
		return nil
	}
	first := int(tr.Range.Start.Line)
	from, to := -1, -1 // the section's lines, as 1-based file lines
	for _, h := range tr.Headings {
		line := int(h.Range.Start.Line)
		switch {
		case from < 0 && h.Level == 2 && strings.EqualFold(strings.TrimSpace(h.Text), OpenQuestionsHeading):
			from = line + 1
		case from >= 0 && to < 0 && line >= from:
			to = line
		}
	}
	if from < 0 {
		return nil
	}
	var out []OpenQuestion
	fence := ""
	offset := int(tr.Range.Start.Offset)
	line := first
	for rest := tr.Text; rest != ""; line++ {
		text := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			text, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		start := offset
		offset += len(text) + 1
		if line < from {
			continue
		}
		if to >= 0 && line >= to {
			break
		}
		text = strings.TrimSuffix(text, "\r")
		t := strings.TrimLeft(text, " \t")
		switch {
		case fenced(&fence, t):
			continue
		case len(text)-len(t) > 3 || !isListItem(t) || isThematicBreak(t):
			continue // an indented line continues a bullet; not a question
		}
		body := strings.TrimSpace(t[1:])
		lower := strings.ToLower(body)
		switch {
		case body == "" || body == "(none)":
			continue
		case strings.HasPrefix(lower, "[x]"):
			continue // checked off: resolved
		case strings.HasPrefix(body, "[ ]"):
			body = strings.TrimSpace(body[3:])
		}
		indent := len(text) - len(t)
		q := OpenQuestion{Text: body, Step: questionStep(body)}
		q.Range = ast.Range{
			Start: ast.NewPos(start+indent, line, indent+1),
			End:   ast.NewPos(start+len(strings.TrimRight(text, " \t")), line, indent+1+len([]rune(strings.TrimRight(t, " \t")))),
		}
		out = append(out, q)
	}
	return out
}

// questionStep reads the step number of "Step 3 (tool): …"; 0 when the
// question does not start by naming a step.
func questionStep(text string) int {
	rest, ok := strings.CutPrefix(text, "Step ")
	if !ok {
		return 0
	}
	end := 0
	for end < len(rest) && end < 9 && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || (end < len(rest) && rest[end] != ' ' && rest[end] != ':' && rest[end] != ',') {
		return 0
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}
