package lint

import (
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

// inputsDoc is what the skill says about its inputs: an `Inputs:` line
// (bold or plain) or an `Inputs` heading and the text under it in the
// preamble, and the frontmatter's `metadata: reelier-inputs` value.
type inputsDoc struct {
	// found reports whether the preamble documents inputs at all.
	found bool
	// words holds every word of the documentation: a variable counts as
	// documented when its name appears, with or without braces.
	words map[string]bool
	// vars holds the names written as `{{name}}`; order lists them once
	// each, in the order written, with the offset of the name.
	vars  map[string]bool
	order []Input
	// lineStart and valueStart, valueEnd are byte offsets of the `Inputs:`
	// line and of the text after its colon (trailing blanks excluded);
	// valueStart is -1 when the documentation is a heading.
	lineStart, valueStart, valueEnd int
}

// Input is a variable the skill documents as an input, written `{{name}}`
// on its Inputs line, under its Inputs heading or in the frontmatter's
// `reelier-inputs` metadata.
type Input struct {
	Name string
	// Offset is the byte offset of the name in the file.
	Offset int
	// Line is the line that documents it (the Inputs line, or the line
	// under an Inputs heading that holds the name), trimmed.
	Line string
}

// DocumentedInputs returns the inputs the skill documents, in the order
// written (the preamble's first, then the frontmatter's). The language server offers them in completion and explains them
// in hover; the undocumented_input rule reads the same documentation.
func DocumentedInputs(s *ast.Skill) []Input {
	if s == nil {
		return nil
	}
	return findInputs(s).order
}

// findInputs reads the Inputs documentation out of the preamble and the
// frontmatter.
func findInputs(s *ast.Skill) inputsDoc {
	doc := preambleInputs(s.Preamble)
	fm := s.Frontmatter
	if e := fm.Metadata(ast.MetadataPrefix + "inputs"); e != nil && e.Kind == ast.ScalarValue && fm.Text != "" {
		base := int(fm.Range.Start.Offset)
		start, end := int(e.ValueRange.Start.Offset)-base, int(e.ValueRange.End.Offset)-base
		if 0 <= start && start <= end && end <= len(fm.Text) {
			line := fm.Text[int(e.Range.Start.Offset)-base : end]
			doc.found = true
			doc.addWords(fm.Text[start:end], int(e.ValueRange.Start.Offset), strings.TrimSpace(line))
		}
	}
	return doc
}

// preambleInputs reads the Inputs documentation out of the preamble.
func preambleInputs(pre ast.Verbatim) inputsDoc {
	doc := inputsDoc{words: map[string]bool{}, vars: map[string]bool{}, valueStart: -1}
	text := pre.Text
	base := int(pre.Range.Start.Offset)
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := strings.TrimRight(text[off:end], " \t\r")
		switch {
		case !doc.found && isInputsLine(line):
			colon := strings.IndexByte(line, ':')
			doc.found = true
			doc.lineStart = base + off
			doc.valueStart = base + off + colon + 1 + leadingMarkup(line[colon+1:])
			doc.valueEnd = base + off + len(line)
			doc.addWords(line[colon+1:], base+off+colon+1, line)
		case !doc.found && isInputsHeading(line):
			doc.found = true
			doc.lineStart = base + off
			doc.addWords(sectionBody(text[end:]), base+end, "")
		}
		off = end + 1
	}
	return doc
}

// leadingMarkup counts the blanks and emphasis markers (the "** " of
// "**Inputs:** …") that open s.
func leadingMarkup(s string) int { return len(s) - len(strings.TrimLeft(s, " \t*_")) }

// isInputsLine reports a line such as `Inputs: …`, `**Inputs:** …` or
// `- Inputs: …`.
func isInputsLine(line string) bool {
	s := strings.TrimLeft(line, " \t-*_")
	if len(s) < len("inputs") || !strings.EqualFold(s[:len("inputs")], "inputs") {
		return false
	}
	s = strings.TrimLeft(s[len("inputs"):], "*_ ")
	return strings.HasPrefix(s, ":")
}

// isInputsHeading reports a Markdown heading whose text is "Inputs".
func isInputsHeading(line string) bool {
	s := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(s, "#") {
		return false
	}
	s = strings.TrimSpace(strings.TrimLeft(s, "#"))
	return strings.EqualFold(strings.TrimRight(s, ":"), "inputs")
}

// sectionBody returns text up to the next Markdown heading.
func sectionBody(text string) string {
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			return text
		}
		end += off
		if strings.HasPrefix(strings.TrimLeft(text[off:end], " "), "#") && off > 0 {
			return text[:off]
		}
		off = end + 1
	}
	return text
}

// addWords records the identifier-like words of s, and the names inside
// `{{…}}`; base is the offset of s in the file and line the Inputs line s
// comes from, or "" when s is the text under an Inputs heading.
func (d *inputsDoc) addWords(s string, base int, line string) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && words.IsIdentByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			w := s[start:i]
			d.words[w] = true
			if start >= 2 && s[start-2:start] == "{{" && strings.HasPrefix(s[i:], "}}") && !d.vars[w] {
				d.vars[w] = true
				holder := line
				if holder == "" { // the line of the section that holds the name
					from := strings.LastIndexByte(s[:start], '\n') + 1
					to := strings.IndexByte(s[i:], '\n')
					if to < 0 {
						to = len(s) - i
					}
					holder = s[from : i+to]
				}
				d.order = append(d.order, Input{Name: w, Offset: base + start, Line: strings.TrimSpace(holder)})
			}
			start = -1
		}
	}
}
