package lint

import (
	"bytes"
	"strings"
)

// ignoreMarker opens a suppression comment: `<!-- reelier:ignore RULE… -->`.
const ignoreMarker = "reelier:ignore"

// ignoreSet is the rules one suppression comment names; an empty set
// (a comment naming no rule) covers every rule.
type ignoreSet []string

func (s ignoreSet) covers(rule string) bool {
	if s == nil {
		return false
	}
	if len(s) == 0 {
		return true
	}
	for _, r := range s {
		if r == rule {
			return true
		}
	}
	return false
}

// findIgnores returns the suppression comments of src by 1-based line. A
// comment must be alone on its line; rule names are separated by blanks
// or commas.
func findIgnores(src []byte) map[int]ignoreSet {
	out := map[int]ignoreSet{}
	if !bytes.Contains(src, []byte(ignoreMarker)) {
		return out
	}
	for i, line := range strings.Split(string(src), "\n") {
		s := strings.TrimSpace(line)
		body, ok := strings.CutPrefix(s, "<!--")
		if !ok {
			continue
		}
		body, ok = strings.CutSuffix(body, "-->")
		if !ok {
			continue
		}
		names, ok := strings.CutPrefix(strings.TrimSpace(body), ignoreMarker)
		if !ok || (names != "" && names[0] != ' ' && names[0] != '\t') {
			continue
		}
		set := ignoreSet{}
		for _, n := range strings.FieldsFunc(names, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }) {
			set = append(set, n)
		}
		out[i+1] = set
	}
	return out
}
