package grammar

import (
	"errors"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// frontmatterLine is a frontmatter line: `key: value`.
type frontmatterLine struct {
	Key   lexer.Token `parser:"@Word Colon"`
	Value lexer.Token `parser:"@Rest?"`
}

// stepBullet is the head of a step bullet, `- key:` (the blank after the
// dash is optional, as in `-intent:`). The value after the colon belongs
// to the field's own grammar.
type stepBullet struct {
	Dash lexer.Token `parser:"@Dash"`
	Key  lexer.Token `parser:"@Word Colon"`
}

// actionLine is an action value: `<tool> <json-args>`.
type actionLine struct {
	Tool lexer.Token `parser:"@Tool"`
	Args lexer.Token `parser:"@Rest?"`
}

// bullet parses the head of a bullet line (through its first colon) once
// per distinct head, and returns it with the trimmed value after it.
func (c *exprCache) bullet(line string) (*stepBullet, string, error) {
	head, value, found := strings.Cut(line, ":")
	if !found {
		return nil, "", errNoColon
	}
	head = line[:len(head)+1] // the key with its colon, without a copy
	g, ok := c.bullets[head]
	if !ok {
		var err error
		if g, err = bulletParser().ParseString("", head); err != nil {
			return nil, "", err
		}
		if c.bullets == nil {
			c.bullets = map[string]*stepBullet{}
		}
		c.bullets[head] = g
	}
	return g, strings.Trim(value, " \t"), nil
}

var errNoColon = errors.New("a step bullet needs a colon after its key")

// Built on first use (see assertParser).
var (
	keyValueParser = sync.OnceValue(func() *participle.Parser[frontmatterLine] {
		return participle.MustBuild[frontmatterLine](participle.Lexer(miniLexer{scan: lineMode}))
	})
	bulletParser = sync.OnceValue(func() *participle.Parser[stepBullet] {
		return participle.MustBuild[stepBullet](participle.Lexer(miniLexer{scan: lineMode}))
	})
	actionParser = sync.OnceValue(func() *participle.Parser[actionLine] {
		return participle.MustBuild[actionLine](participle.Lexer(miniLexer{scan: actionMode}))
	})
)

// isFrontmatterKey reports whether k is a frontmatter key: a letter or '_'
// first, then letters, digits, '_' or '-'. Hyphens are accepted so Agent
// Skills keys such as `allowed-tools` work (the original refused them).
func isFrontmatterKey(k string) bool {
	return k != "" && !(k[0] >= '0' && k[0] <= '9') && k[0] != '-'
}

// stepHeader is the parsed `### Step N — Title` line.
type stepHeader struct {
	number               int
	numStart, numEnd     int // byte columns within the line
	title                string
	titleStart, titleEnd int
	ok                   bool // false when the line only looks like a header
}

// looksLikeStepHeader reports whether a line starts `### Step <digit>`,
// after at most three spaces (a CommonMark heading's indentation):
// such a line always opens a step, and is rejected if the rest is wrong.
func looksLikeStepHeader(s string) bool {
	rest, ok := strings.CutPrefix(s[headingIndent(s):], "###")
	if !ok || rest == "" || !isBlank(rest[0]) {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	rest, ok = strings.CutPrefix(rest, "Step")
	if !ok || rest == "" || !isBlank(rest[0]) {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// parseStepHeader reads `### Step <N> — <Title>` (em dash or hyphen).
func parseStepHeader(s string) stepHeader {
	var h stepHeader
	i := headingIndent(s) + 3
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	i += len("Step")
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	h.numStart = i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	h.numEnd = i
	n, numOK := parseUint(s[h.numStart:h.numEnd])
	h.number = n
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	switch {
	case strings.HasPrefix(s[i:], "—"):
		i += len("—")
	case strings.HasPrefix(s[i:], "-"):
		i++
	default:
		return h
	}
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	h.titleStart = i
	h.title = strings.TrimRight(s[i:], " \t")
	h.titleEnd = i + len(h.title)
	h.ok = numOK && h.title != ""
	return h
}

// isSectionHeading reports whether a line is a level-2 heading (`## X`),
// which closes a step's field block.
func isSectionHeading(s string) bool {
	s = s[headingIndent(s):]
	return len(s) > 2 && s[0] == '#' && s[1] == '#' && isBlank(s[2])
}

// headingIndent is how many spaces open a line before a heading's `#`:
// CommonMark allows up to three (four make an indented code block).
func headingIndent(s string) int {
	n := 0
	for n < len(s) && n < 3 && s[n] == ' ' {
		n++
	}
	return n
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }
