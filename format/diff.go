package format

import (
	"github.com/pmezard/go-difflib/difflib"
)

// Diff returns a unified diff from old to new, labelled with name, or ""
// when they are equal.
func Diff(name string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(old)),
		B:        difflib.SplitLines(string(new)),
		FromFile: name + ".orig",
		ToFile:   name,
		Context:  3,
	})
	if err != nil { // only a failing writer can cause this; strings.Builder never fails
		return ""
	}
	return d
}
