package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/atomicfile"
)

// area is a directory tool calls may reach: the working directory, or the
// history directory transcripts are read from. Paths are checked against
// its real location (symbolic links resolved), and then every read and
// write goes through an os.Root on it, by the path's name in the root:
// the root refuses to leave the directory even if a link changes after
// the check.
type area struct {
	// what names the directory in messages ("the working directory").
	what string
	// dir is the absolute directory with its symbolic links resolved.
	dir  string
	root *os.Root
	// escapes is the error the root refuses a name with that leads
	// outside it, "path escapes from parent" (os does not export it).
	escapes error
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
	a := &area{what: what, dir: real, root: root}
	// The root hands its refusal over for a name that is outside by its
	// letters alone.
	var pe *fs.PathError
	if _, err := root.Lstat(".."); errors.As(err, &pe) {
		a.escapes = pe.Err
	}
	return a, nil
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

// name is the absolute, resolved path p as a name in the area's os.Root.
func (a *area) name(p string) (string, error) {
	rel, ok := a.contains(p)
	if !ok {
		return "", fmt.Errorf("%s is outside %s", p, a.what)
	}
	return rel, nil
}

// readFile reads the file at the absolute, resolved path p through the
// area's os.Root.
func (a *area) readFile(p string) ([]byte, error) {
	rel, err := a.name(p)
	if err != nil {
		return nil, err
	}
	return a.root.ReadFile(rel)
}

// open opens the file at the absolute, resolved path p for reading
// through the area's os.Root.
func (a *area) open(p string) (*os.File, error) {
	rel, err := a.name(p)
	if err != nil {
		return nil, err
	}
	return a.root.Open(rel)
}

// lstat is os.Lstat of the absolute, resolved path p, through the area's
// os.Root.
func (a *area) lstat(p string) (fs.FileInfo, error) {
	rel, err := a.name(p)
	if err != nil {
		return nil, err
	}
	return a.root.Lstat(rel)
}

// writeFile replaces the file at the absolute, resolved path p with data
// atomically, creating its folders, all through the area's os.Root: the
// temporary file is created beside the target inside the root, synced,
// and renamed over it inside the root.
func (a *area) writeFile(p string, data []byte, perm fs.FileMode) error {
	rel, err := a.name(p)
	if err != nil {
		return err
	}
	if err := a.root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteIn(a.root, rel, data, perm)
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
	// late is set when the path passed the check and the os.Root then
	// refused to follow a symbolic link out of the area: the link changed
	// in between.
	late bool
}

// Error names the path and the directories it must stay inside.
func (e *outsideError) Error() string {
	dirs := make([]string, len(e.areas))
	for i, a := range e.areas {
		dirs[i] = a.what + " (" + a.dir + ")"
	}
	if e.late {
		return fmt.Sprintf("%s %q is outside %s by now: a symbolic link on its way changed after the path was checked, and reelier serve did not follow it",
			e.arg, e.path, strings.Join(dirs, " or "))
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

// refusedLate is err, from an operation through the area's os.Root on a
// path that passed the check (arg and given name it as the caller did),
// made the refusal of that path when the root refused to follow a
// symbolic link out of the area: the link changed after the check. Any
// other error is returned as it is.
func (a *area) refusedLate(err error, arg, given string) error {
	if err == nil || a.escapes == nil || !errors.Is(err, a.escapes) {
		return err
	}
	return &outsideError{arg: arg, path: given, areas: []*area{a}, late: true}
}

// workName resolves p against base as within does and returns it as a
// name in the working directory's os.Root, for an operation through it.
func (s *Server) workName(arg, base, p string) (string, error) {
	real, _, err := within(arg, base, p, s.work)
	if err != nil {
		return "", err
	}
	return s.work.name(real)
}
