package compile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/exitstatus"
)

// CheckOverwrite refuses, as a usage error, to write a compiled skill to
// path when something is there already: a directory always, a file
// unless force is set.
func CheckOverwrite(path string, force bool) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return exitstatus.Usagef("%v", err)
	case info.IsDir():
		return exitstatus.Usagef("%s is a directory; pass -o with a file name", path)
	case !force:
		return exitstatus.Usagef("%s already exists; pass --force to replace it, or -o to write elsewhere", path)
	}
	return nil
}

// DefaultSkillPath is <name>.skill.md in the current directory, where the
// name is the trace's own with anything but letters, digits, ".", "_" and
// "-" made "-", so a name can never point elsewhere; a trace without a
// usable name is named after its file.
func DefaultSkillPath(name, tracePath string) string {
	clean := func(s string) string {
		s = strings.Map(func(r rune) rune {
			if r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '-'
		}, s)
		return strings.TrimLeft(s, ".-")
	}
	base := clean(name)
	if base == "" {
		base = clean(strings.TrimSuffix(filepath.Base(tracePath), ".jsonl"))
	}
	if base == "" {
		base = "compiled"
	}
	return base + ".skill.md"
}
