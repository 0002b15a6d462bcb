package lint

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/lang/ast"
)

var ruleRegex = &Rule{
	Name:            "regex",
	Title:           "A regular expression uses a feature JavaScript does not have, or cannot bind",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: `Skills are written for JavaScript regular expressions. Reelier compiles
them with an engine that also accepts .NET syntax, so some patterns compile
here but mean something else (or nothing) in JavaScript, and the same skill
behaves differently under the two implementations. This rule reports:

- escapes that are not JavaScript escapes: ` + "`\\A`, `\\z`, `\\Z`, `\\G`, `\\p{…}`, `\\e`, `\\Q…\\E`" + `
  and any other backslash-letter that JavaScript reads as the bare letter;
- groups JavaScript does not have: inline flags ` + "`(?i)`" + `, atomic groups
  ` + "`(?>…)`" + `, comments ` + "`(?#…)`" + `, conditionals ` + "`(?(…)…)`" + ` and ` + "`(?'name'…)`" + `;
- character classes that differ: POSIX classes ` + "`[[:alpha:]]`" + `, class
  subtraction ` + "`[a-z-[aeiou]]`" + `, and ` + "`[]`/`[^]`" + `, which JavaScript reads as
  "nothing" and "anything";
- a ` + "`body match`" + ` bind whose pattern has no capture group: the bind takes
  group 1, so it can never succeed.

Every regex of a selection (` + "`lines /…/`" + ` and ` + "`matches /…/`" + `) is checked
the same way.

A pattern that does not compile at all is rejected by the parser and
reported by ` + "`parse_error`" + `.`,
	FixDoc: "`\\A` becomes `^` and `\\z` becomes `$`; a bind pattern without a group is wrapped in one, so the bind takes the whole match.",
	Example: `---
name: version
description: Read the service version
---

### Step 1 — Version
- intent: Read the version banner
- action: http.get {"url": "https://api.example.test/version"}
- assert: json.version matches /\Av[0-9]+\z/
- bind: build = body match /build-[0-9]+/
- effect: read
`,
	Run: runRegex,
}

func runRegex(p *Pass) {
	for _, st := range p.Skill.Steps {
		for _, af := range st.Asserts {
			switch a := af.Expr.(type) {
			case *ast.JSONMatchesAssert:
				checkPattern(p, st.Number, a.Pattern, a.PatternRange)
			case *ast.SelectionAssert:
				checkSelectionPatterns(p, st.Number, a.Sel)
				if a.Kind == ast.SelMatches {
					checkPattern(p, st.Number, a.Pattern, a.PatternRange)
				}
			}
		}
		for _, bf := range st.Binds {
			if sb, ok := bf.Expr.(*ast.SelectionBind); ok {
				checkSelectionPatterns(p, st.Number, sb.Sel)
				continue
			}
			b, ok := bf.Expr.(*ast.BodyMatchBind)
			if !ok {
				continue
			}
			checkPattern(p, st.Number, b.Pattern, b.PatternRange)
			re, err := jsregex.Compile(b.Pattern)
			if err == nil && len(re.GetGroupNumbers()) < 2 {
				p.Report(ast.Diagnostic{
					Step:    st.Number,
					Range:   b.PatternRange,
					Message: fmt.Sprintf("bind %s takes capture group 1, but /%s/ has no capture group, so it can never succeed", b.Name, b.Pattern),
					Fixes:   fix("Capture the whole match", replace(b.PatternRange, "("+b.Pattern+")")),
				})
			}
		}
	}
}

// checkSelectionPatterns checks the regexes of a selection: its `lines`
// source's and its conditions'.
func checkSelectionPatterns(p *Pass, step int, s *ast.Selection) {
	if s.Source.Pattern != "" {
		checkPattern(p, step, s.Source.Pattern, s.Source.PatternRange)
	}
	for _, c := range s.Where {
		if c.Op == ast.CondMatches {
			checkPattern(p, step, c.Pattern, c.PatternRange)
		}
	}
}

// patternIssue is one construct of a pattern that JavaScript reads
// differently, at byte offsets [at, end) of the pattern.
type patternIssue struct {
	at, end int
	what    string
	repl    string // replacement for a fix, or ""
}

func checkPattern(p *Pass, step int, pat string, rng ast.Range) {
	base := int(rng.Start.Offset)
	for _, is := range patternIssues(pat) {
		d := ast.Diagnostic{
			Step:    step,
			Range:   p.span(base+is.at, base+is.end),
			Message: fmt.Sprintf(`"%s" in /%s/ %s`, pat[is.at:is.end], pat, is.what),
		}
		if is.repl != "" {
			d.Fixes = fix(fmt.Sprintf("Write %s", is.repl), replace(d.Range, is.repl))
		}
		p.Report(d)
	}
}

// jsLetterEscapes are the backslash-letter escapes JavaScript gives a
// meaning outside unicode mode; `\k` is a named back-reference.
const jsLetterEscapes = "dDwWsSbBfnrtvcxuk"

// escapeNotes explain the escapes whose other meaning is worth naming.
var escapeNotes = map[byte]struct{ what, repl string }{
	'A': {"is a start-of-input anchor here but the letter A in JavaScript; use ^", "^"},
	'z': {"is an end-of-input anchor here but the letter z in JavaScript; use $", "$"},
	'Z': {"is an end-of-input anchor here but the letter Z in JavaScript", ""},
	'G': {"is a continuation anchor here but the letter G in JavaScript", ""},
	'p': {"is a Unicode property class here but the text p{…} in JavaScript without the u flag, which skills cannot set", ""},
	'P': {"is a Unicode property class here but the text P{…} in JavaScript without the u flag, which skills cannot set", ""},
	'Q': {"starts a quoted literal here but is the letter Q in JavaScript", ""},
	'E': {"ends a quoted literal here but is the letter E in JavaScript", ""},
	'e': {"is the escape character here but the letter e in JavaScript; use \\x1b", "\\x1b"},
	'a': {"is the bell character here but the letter a in JavaScript; use \\x07", "\\x07"},
}

// patternIssues scans a pattern for constructs that JavaScript reads
// differently from Reelier's engine.
func patternIssues(pat string) []patternIssue {
	var out []patternIssue
	inClass := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat):
			if is, ok := escapeIssue(pat, i); ok {
				if inClass {
					is.repl = "" // an anchor has no meaning inside a class
				}
				out = append(out, is)
			}
			i++
		case inClass && c == ']':
			inClass = false
		case inClass && c == '[' && strings.HasPrefix(pat[i:], "[:"):
			if end := strings.Index(pat[i+2:], ":]"); end >= 0 {
				out = append(out, patternIssue{at: i, end: i + 2 + end + 2, what: "is a POSIX class here but a plain set of characters in JavaScript"})
			}
		case inClass && c == '-' && i+1 < len(pat) && pat[i+1] == '[':
			out = append(out, patternIssue{at: i, end: i + 2, what: "is class subtraction here, which JavaScript does not have"})
		case !inClass && c == '[':
			inClass = true
			if is, ok := emptyClassIssue(pat, i); ok {
				out = append(out, is)
				inClass = false
				i = is.end - 1
			}
		case !inClass && c == '(' && strings.HasPrefix(pat[i:], "(?"):
			if is, ok := groupIssue(pat, i); ok {
				out = append(out, is)
			}
		}
	}
	return out
}

func escapeIssue(pat string, i int) (patternIssue, bool) {
	n := pat[i+1]
	if !(n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z') || strings.IndexByte(jsLetterEscapes, n) >= 0 {
		return patternIssue{}, false
	}
	is := patternIssue{at: i, end: i + 2, what: "is not a JavaScript escape (JavaScript reads it as the bare letter)"}
	if note, ok := escapeNotes[n]; ok {
		is.what, is.repl = note.what, note.repl
	}
	return is, true
}

// emptyClassIssue reports `[]` and `[^]`, which JavaScript reads as "no
// character" and "any character" and .NET as the start of a class holding ].
func emptyClassIssue(pat string, i int) (patternIssue, bool) {
	for _, form := range []string{"[]", "[^]"} {
		if strings.HasPrefix(pat[i:], form) {
			return patternIssue{at: i, end: i + len(form), what: "means an empty or any-character class in JavaScript but starts a class holding ']' here"}, true
		}
	}
	return patternIssue{}, false
}

func groupIssue(pat string, i int) (patternIssue, bool) {
	rest := pat[i+2:]
	at := func(n int, what string) (patternIssue, bool) {
		return patternIssue{at: i, end: i + 2 + n, what: what}, true
	}
	switch {
	case rest == "":
		return patternIssue{}, false
	case strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!"):
		return patternIssue{}, false
	case rest[0] == ':' || rest[0] == '=' || rest[0] == '!' || rest[0] == '<':
		return patternIssue{}, false
	case rest[0] == '>':
		return at(1, "is an atomic group, which JavaScript does not have")
	case rest[0] == '#':
		return at(1, "is a comment group, which JavaScript does not have")
	case rest[0] == '(':
		return at(1, "is a conditional group, which JavaScript does not have")
	case rest[0] == '\'':
		return at(1, "is a .NET named group; JavaScript writes (?<name>…)")
	}
	n := 0
	for n < len(rest) && strings.IndexByte("imnsx-", rest[n]) >= 0 {
		n++
	}
	if n > 0 {
		if n < len(rest) && rest[n] == ')' {
			n++
		}
		return at(n, "sets inline flags, which JavaScript regular expressions in skills cannot")
	}
	return at(1, "is not a JavaScript group")
}
