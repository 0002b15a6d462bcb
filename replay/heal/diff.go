package heal

import "github.com/reelier/reelier/lang/format"

// unifiedDiff is the patch from old to new of the file at path, for
// `patch -p0` (or `git apply -p0`); "" when the texts are equal.
func unifiedDiff(path string, old, new []byte) string { return format.Patch(path, old, new) }
