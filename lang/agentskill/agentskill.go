// Package agentskill holds the constraints the Agent Skills format
// (agentskills.io) puts on a skill's name and description, as its
// reference validator and Claude's platform apply them, so the linter and
// the compiler check the same rules.
package agentskill

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits of the format.
const (
	MaxName        = 64
	MaxDescription = 1024
)

// reservedWords may not appear in a name (Claude's platform refuses them).
var reservedWords = []string{"anthropic", "claude"}

var xmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<\s*/?\s*[A-Za-z][^<>]*>`) })

// nameRune reports a character a name may hold: a letter that is not
// upper case (so "zürich" and CJK names pass, as the reference validator
// lets i18n names pass), a digit, or a hyphen.
func nameRune(r rune) bool {
	return r == '-' || unicode.IsDigit(r) || unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r)
}

// NameProblems lists what is wrong with a skill name, or nothing. A name
// is 1 to 64 characters of lower-case letters, digits and single hyphens,
// neither starting nor ending with one; it holds no XML tag and none of
// the reserved words.
func NameProblems(name string) []string {
	var out []string
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return []string{"the name is empty"}
	case n > MaxName:
		out = append(out, fmt.Sprintf("the name is %d characters long; at most %d", n, MaxName))
	}
	for _, r := range name {
		if !nameRune(r) {
			out = append(out, fmt.Sprintf("the name holds %q; only lower-case letters, digits and hyphens are allowed", r))
			break
		}
	}
	switch {
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		out = append(out, "the name starts or ends with a hyphen")
	case strings.Contains(name, "--"):
		out = append(out, "the name holds two hyphens in a row")
	}
	if xmlTag().MatchString(name) {
		out = append(out, "the name holds an XML tag")
	}
	for _, w := range reservedWords {
		if strings.Contains(strings.ToLower(name), w) {
			out = append(out, fmt.Sprintf("the name holds the reserved word %q", w))
		}
	}
	return out
}

// DescriptionProblems lists what is wrong with a skill description, or
// nothing: 1 to 1024 characters, no XML tag.
func DescriptionProblems(desc string) []string {
	var out []string
	switch n := utf8.RuneCountInString(desc); {
	case strings.TrimSpace(desc) == "":
		return []string{"the description is empty"}
	case n > MaxDescription:
		out = append(out, fmt.Sprintf("the description is %d characters long; at most %d", n, MaxDescription))
	}
	if xmlTag().MatchString(desc) {
		out = append(out, "the description holds an XML tag")
	}
	return out
}

// Name turns any text into a name the format accepts: lower case, every
// run of other characters one hyphen, reserved words replaced by "agent",
// at most 64 characters, no hyphen at either end. It returns "" when
// nothing usable is left.
func Name(s string) string {
	s = strings.ToLower(s)
	for _, w := range reservedWords {
		s = strings.ReplaceAll(s, w, "agent")
	}
	var b strings.Builder
	hyphen := false
	for _, r := range s {
		if r != '-' && nameRune(r) {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	out := b.String()
	if utf8.RuneCountInString(out) > MaxName {
		out = strings.TrimRight(string([]rune(out)[:MaxName]), "-")
	}
	return out
}

// PlainProblems lists what keeps a frontmatter value from reading, in
// YAML, as the plain string it is written as (validators of the format
// parse the frontmatter as YAML): ": " makes a nested map, " #" starts a
// comment, a leading indicator character starts another kind of node, and
// a trailing ":" a key.
func PlainProblems(v string) []string {
	var out []string
	if strings.Contains(v, ": ") || strings.HasSuffix(v, ":") {
		out = append(out, `it holds ": " (or ends with ":"), which YAML reads as a nested map — quote the value or reword it`)
	}
	if strings.Contains(v, " #") || strings.Contains(v, "\t#") {
		out = append(out, `it holds " #", which YAML reads as the start of a comment`)
	}
	if v != "" && strings.ContainsRune(yamlIndicators, rune(v[0])) {
		out = append(out, fmt.Sprintf("it starts with %q, which YAML reads as something other than plain text", v[0]))
	}
	if len(out) == 0 && v != "" {
		if problem := scalarProblem(v); problem != "" {
			out = append(out, problem)
		}
	}
	return out
}

// scalarProblem says why YAML does not read the plain value v as the string
// v itself (it reads a number, a boolean, null, or cannot read it), or "".
func scalarProblem(v string) string {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte("v: "+v+"\n"), &doc); err != nil {
		return fmt.Sprintf("YAML cannot read it (%v)", err)
	}
	kind := ""
	switch got := doc["v"].(type) {
	case string:
		if got == v {
			return ""
		}
		kind = fmt.Sprintf("the text %q", got)
	case nil:
		kind = "null"
	case bool:
		kind = "a boolean"
	case int, int64, uint64, float64:
		kind = "a number"
	default:
		kind = fmt.Sprintf("a %T", got)
	}
	return "YAML reads it as " + kind + ", not as the text written — quote the value or reword it"
}

// yamlIndicators are the characters that may not start a YAML plain
// scalar.
const yamlIndicators = "-?:,[]{}#&*!|>'\"%@`"

// Description cuts a description to the format's limit, takes out anything
// that reads as an XML tag, and rewrites what YAML would not read as plain
// text (": " becomes " — ", " #" becomes " "); a value YAML would read as a
// number, a boolean or null ("0", "true") gets "Skill " in front. Invalid
// UTF-8 becomes U+FFFD and control characters (line breaks, tabs) spaces.
func Description(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	for xmlTag().MatchString(s) { // "<<a>b>" leaves "<b>" after one round
		s = xmlTag().ReplaceAllString(s, "")
	}
	for strings.Contains(s, ": ") { // "a:: b" needs two rounds
		s = strings.ReplaceAll(s, ": ", " — ")
	}
	for strings.Contains(s, " #") {
		s = strings.ReplaceAll(s, " #", " ")
	}
	s = strings.TrimRight(s, ":")
	s = strings.TrimLeft(s, yamlIndicators+" ")
	if utf8.RuneCountInString(s) > MaxDescription {
		s = string([]rune(s)[:MaxDescription-1]) + "…"
	}
	s = strings.TrimSpace(s)
	if s != "" && scalarProblem(s) != "" {
		s = "Skill " + s
	}
	return s
}
