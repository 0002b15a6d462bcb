package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/lang/skillfile"
)

// NewFromConfig builds the driver of reelier lint: the configuration file
// at path (found from the working directory when path is empty), under the
// rules enable and disable name.
func NewFromConfig(path string, enable, disable []string) (*Driver, error) {
	if path == "" {
		path = FindConfig(".")
	}
	var base Config
	if path != "" {
		var err error
		if base, err = LoadConfig(path); err != nil {
			return nil, err
		}
	}
	return New(Config{Enable: enable, Disable: disable, Base: &base})
}

// Session lints the files of one reelier lint run, collecting their
// results; problems reading or writing a file go to Stderr.
type Session struct {
	Driver *Driver
	// Fix applies the fixes and writes them back (--fix); Verbose notes
	// the Agent Skills a walk passes over (-v).
	Fix, Verbose bool
	Stdin        io.Reader
	Stderr       io.Writer
	// BeforeParse, when not nil, is told each file's size before it is
	// parsed.
	BeforeParse func(size int)

	Results  []Result
	BadInput bool // a path could not be read or written
	Errors   bool // an error-severity finding remains
	// Unparsed: a file does not parse (its parse errors are findings, and
	// reelier lint exits 2 for it, as parse, fmt and run do).
	Unparsed bool
}

// Walk lints a file, or every skill file under a directory.
func (l *Session) Walk(root string) {
	if root == "-" {
		l.file(root)
		return
	}
	loader.Walk(root, l.file, l.other, l.fail)
}

// other notes, with -v, an Agent Skill the walk passed over.
func (l *Session) other(path string) {
	if l.Verbose {
		fmt.Fprintf(l.Stderr, "%s: not a replayable skill (no Reelier steps), left alone\n", path)
	}
}

func (l *Session) fail(err error) {
	fmt.Fprintln(l.Stderr, "reelier lint:", err)
	l.BadInput = true
}

func (l *Session) file(path string) {
	ls, err := loader.Load(path, l.Stdin, l.BeforeParse)
	if err != nil {
		l.fail(errors.Unwrap(err))
		return
	}
	f := &File{Name: ls.Path, Src: ls.Src, Skill: ls.Skill, Diags: ls.Diags}
	l.Unparsed = l.Unparsed || ls.Diags.HasErrors()
	res := Result{File: f.Name}
	if l.Fix {
		fixed := l.Driver.Fix(f)
		if fixed.Changed() {
			var err error
			if fixed, err = l.rewrite(path, f, fixed); err != nil {
				l.fail(err)
				return
			}
		}
		if fixed.Changed() {
			fixes := "fixes"
			if fixed.Applied == 1 {
				fixes = "fix"
			}
			fmt.Fprintf(l.Stderr, "%s: applied %d %s\n", f.Name, fixed.Applied, fixes)
		}
		res.Diagnostics = fixed.Diagnostics
	} else {
		res.Diagnostics = l.Driver.Run(f)
	}
	l.Errors = l.Errors || res.Diagnostics.HasErrors()
	l.Results = append(l.Results, res)
}

// rewrite writes fixed, the fixes of the file read as f, through
// skillfile.Update: under the lock heals take, the file is read again and,
// when it is no longer what f holds (a heal or a format landed meanwhile),
// parsed and fixed anew, so nothing written since is lost. It returns the
// fixes of the bytes it wrote from, with their remaining findings; none
// applied when another writer had already fixed the file.
func (l *Session) rewrite(path string, f *File, fixed *FixResult) (*FixResult, error) {
	var out *FixResult
	_, err := skillfile.Update(path, func(src []byte) ([]byte, error) {
		out = fixed
		if !bytes.Equal(src, f.Src) {
			out = l.Driver.Fix(ParseFile(f.Name, src))
		}
		return out.Src, nil
	})
	return out, err
}
