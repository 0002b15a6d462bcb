package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// area is a directory tool calls may reach: the working directory, or the
// history directory transcripts are read from. Paths are checked against
// its real location (symbolic links resolved) and read through an os.Root,
// which refuses to leave the directory even if a link changes after the
// check.
type area struct {
	// what names the directory in messages ("the working directory").
	what string
	// dir is the absolute directory with its symbolic links resolved.
	dir  string
	root *os.Root
}

// openArea opens dir as an area.
func openArea(what, dir string) (*area, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, dir, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, dir, err)
	}
	return &area{what: what, dir: real, root: root}, nil
}

func (a *area) close() error { return a.root.Close() }

// contains reports whether the absolute, resolved path p is a.dir or lies
// below it, and returns p relative to a.dir.
func (a *area) contains(p string) (string, bool) {
	rel, err := filepath.Rel(a.dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// readFile reads the file at the absolute, resolved path p through the
// area's os.Root.
func (a *area) readFile(p string) ([]byte, error) {
	rel, ok := a.contains(p)
	if !ok {
		return nil, fmt.Errorf("%s is outside %s", p, a.what)
	}
	return a.root.ReadFile(rel)
}

// open opens the file at the absolute, resolved path p for reading
// through the area's os.Root.
func (a *area) open(p string) (*os.File, error) {
	rel, ok := a.contains(p)
	if !ok {
		return nil, fmt.Errorf("%s is outside %s", p, a.what)
	}
	return a.root.Open(rel)
}

// errEmptyPath is the message for a path argument given as "".
var errEmptyPath = errors.New("the path is empty")

// locate turns the path a caller passed into an absolute path with its
// symbolic links resolved, relative to base when it is relative ("~/" is
// the home directory). The file itself need not exist.
func locate(base, p string) (string, error) {
	if p == "" {
		return "", errEmptyPath
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%q: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return realPath(filepath.Clean(p))
}

// realPath resolves the symbolic links of the longest part of p that
// exists and appends the rest. A link whose target does not exist is
// refused: writing through it would create a file wherever it points.
func realPath(p string) (string, error) {
	rest := ""
	for q := p; ; {
		r, err := filepath.EvalSymlinks(q)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if _, lerr := os.Lstat(q); lerr == nil {
			return "", fmt.Errorf("%s cannot be resolved (a symbolic link to nowhere?): %w", q, err)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(q)
		if parent == q {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
}

// outsideError is the refusal of a path that leads out of every area a
// tool may use.
type outsideError struct {
	arg, path string
	areas     []*area
}

// Error names the path and the directories it must stay inside.
func (e *outsideError) Error() string {
	dirs := make([]string, len(e.areas))
	for i, a := range e.areas {
		dirs[i] = a.what + " (" + a.dir + ")"
	}
	return fmt.Sprintf("%s %q is outside %s, so reelier serve will not touch it; pass a path inside it (symbolic links are followed before this check)",
		e.arg, e.path, strings.Join(dirs, " or "))
}

// within resolves p against base and returns it if it lies in one of the
// areas, with the area it lies in. arg names the argument in messages.
func within(arg, base, p string, areas ...*area) (string, *area, error) {
	real, err := locate(base, p)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", arg, err)
	}
	for _, a := range areas {
		if a == nil {
			continue
		}
		if _, ok := a.contains(real); ok {
			return real, a, nil
		}
	}
	var live []*area
	for _, a := range areas {
		if a != nil {
			live = append(live, a)
		}
	}
	return "", nil, &outsideError{arg: arg, path: p, areas: live}
}
