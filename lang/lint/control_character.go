package lint

import (
	"unicode/utf8"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// maxControlFindings bounds the findings of control_character in one file;
// past it, one more finding says how many were left out. A file of control
// characters would otherwise make one finding per byte.
const maxControlFindings = 100

var ruleControlCharacter = &Rule{
	Name:            "control_character",
	Title:           "The skill holds a control, line-break or bidi character",
	Category:        CategorySafety,
	DefaultSeverity: ast.SeverityError,
	Doc: `A skill is text that reaches a terminal (titles, the trust prompt for its
servers), a shell (its server commands are started) and a YAML workflow
(` + "`reelier ci`" + ` copies its server commands and paths into one). Some
characters change what those show or do without showing themselves: ESC
starts a terminal control sequence, CR returns to the start of the line so
what follows hides what came before, NEL (U+0085), LS (U+2028) and PS
(U+2029) end a line in YAML 1.1, and the bidi embeddings, overrides and
isolates (U+202A–U+202E, U+2066–U+2069) reorder what a reader sees. The
rule reports every C0 control but tab (a CR is fine only as part of a CRLF
line end), DEL, every C1 control, LS, PS and those bidi controls, wherever
the file holds them; the parser already refuses them in a Servers line
(` + "`server_control_character`" + `). Right-to-left text itself, and the
bidi marks LRM and RLM, are fine. The rule reads the file's text alone, so
it reports on a file that does not parse too.`,
	FixDoc:   "Deletes the character, when the file without all of them parses.",
	Example:  "---\nname: remember\ndescription: Remember a fact\n---\n\n### Step 1 — Remember the fact\u202e\n- intent: Remember it\x1b[8m quietly\n- action: http.post {\"url\": \"https://api.example.test/facts\"}\n- assert: status == 201\n- effect: idempotent-write\n",
	Run:      runControlCharacter,
	TextOnly: true,
}

func runControlCharacter(p *Pass) {
	src := p.Src
	var at []int // offsets of the characters found
	for i := 0; i < len(src); {
		c := src[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(src[i:])
		}
		if termtext.Forbidden(r) && c != '\n' && !(c == '\r' && i+1 < len(src) && src[i+1] == '\n') {
			at = append(at, i)
		}
		i += size
	}
	if len(at) == 0 {
		return
	}
	// Deleting is offered only when the file without every one of them
	// parses: a fix must leave a file the parser takes.
	offer := deletedParses(p.File.Name, src, at)
	for k, i := range at {
		if k == maxControlFindings {
			p.Reportf(0, p.span(len(src), len(src)), "%d more control, line-break or bidi characters in the file are not listed", len(at)-maxControlFindings)
			break
		}
		r, size := utf8.DecodeRune(src[i:])
		if src[i] < utf8.RuneSelf {
			r, size = rune(src[i]), 1
		}
		rng := p.span(i, i+size)
		d := ast.Diagnostic{Range: rng, Message: "the file holds " + describeControl(r) +
			", which can make what a terminal, a shell or a YAML workflow shows differ from what the file says; delete it"}
		if offer {
			d.Fixes = fix("Delete "+termtext.CodePoint(r), ast.TextEdit{Range: rng})
		}
		p.Report(d)
	}
}

// deletedParses reports whether src with the characters at the offsets
// deleted parses without errors.
func deletedParses(name string, src []byte, at []int) bool {
	out := make([]byte, 0, len(src))
	prev := 0
	for _, i := range at {
		_, size := utf8.DecodeRune(src[i:])
		if src[i] < utf8.RuneSelf {
			size = 1
		}
		out = append(out, src[prev:i]...)
		prev = i + size
	}
	out = append(out, src[prev:]...)
	_, diags := grammar.Parse(name, out)
	return !diags.HasErrors()
}

// describeControl names a forbidden character for a message.
func describeControl(r rune) string {
	name := ""
	switch {
	case r == '\r':
		name = "carriage return"
	case r == 0x1b:
		name = "escape"
	case r == 0x85:
		name = "next line, a line break to YAML 1.1"
	case r == 0x2028:
		name = "line separator, a line break to YAML 1.1"
	case r == 0x2029:
		name = "paragraph separator, a line break to YAML 1.1"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		name = "a bidi control"
	case r >= 0x80:
		name = "a C1 control"
	default:
		name = "a control character"
	}
	return termtext.CodePoint(r) + " (" + name + ")"
}
