package heal

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// unifiedDiff is the patch from old to new of the file at path, for
// `patch -p0` (or `git apply -p0`): both sides are labelled with path, three
// lines of context, and a last line without a line break is marked the way
// diff marks it. It is "" when the texts are equal.
//
// (format.Diff is for reading: difflib.SplitLines adds an empty line after
// the last one, a context line no file has, so a hunk that reaches the end
// of the file would not apply.)
func unifiedDiff(path string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: diffLines(string(old)), B: diffLines(string(new)),
		FromFile: path, ToFile: path, Context: 3,
	})
	if err != nil { // only a failing writer can cause this; a strings.Builder never fails
		return ""
	}
	return d
}

// diffLines splits s after each line break; a last line without one is
// followed by diff's "\ No newline at end of file" marker.
func diffLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if last := len(lines) - 1; lines[last] == "" {
		lines = lines[:last]
	} else {
		lines[last] += "\n\\ No newline at end of file\n"
	}
	return lines
}
