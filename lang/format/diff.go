package format

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Diff returns a unified diff from old to new, labelled name.orig and name,
// or "" when they are equal. It applies with `patch` like Patch's.
func Diff(name string, old, new []byte) string {
	return unified(name+".orig", name, old, new)
}

// Patch returns the patch from old to new of the file at path, for
// `patch -p0` or `git apply -p0`: both sides labelled with path, three
// lines of context. It is "" when the texts are equal.
func Patch(path string, old, new []byte) string {
	return unified(path, path, old, new)
}

func unified(from, to string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: diffLines(string(old)), B: diffLines(string(new)),
		FromFile: from, ToFile: to, Context: 3,
	})
	if err != nil { // only a failing writer can cause this; strings.Builder never fails
		return ""
	}
	return d
}

// diffLines splits s after each line break. A last line without one is
// followed by diff's "\ No newline at end of file" marker; no empty line is
// added after the last (difflib.SplitLines adds one, a context line no
// file has, so a hunk reaching the end of the file would not apply).
func diffLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if last := len(lines) - 1; lines[last] == "" {
		lines = lines[:last]
	} else {
		lines[last] += "\n\\ No newline at end of file\n"
	}
	return lines
}
