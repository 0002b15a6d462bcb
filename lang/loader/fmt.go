package loader

import (
	"errors"
	"fmt"
	"io"

	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/skillfile"
)

// Fmt is reelier fmt over files and folders: each skill file is
// printed in canonical form (the default), listed when it is not (List,
// Check), shown as a diff (Diff) or rewritten in place (Write). Problems
// go to Stderr and set BadInput; Differs says a file was not canonical.
type Fmt struct {
	List, Write, Diff, Check bool
	Stdin                    io.Reader
	Stdout, Stderr           io.Writer
	// BeforeParse, when not nil, is told each file's size before it is
	// parsed.
	BeforeParse func(size int)

	BadInput, Differs bool
}

// Walk formats a file, or every skill file under a folder.
func (f *Fmt) Walk(root string) { Walk(root, f.File, nil, f.fail) }

func (f *Fmt) fail(err error) {
	fmt.Fprintln(f.Stderr, "reelier fmt:", err)
	f.BadInput = true
}

// File formats one file ("-" is Stdin).
func (f *Fmt) File(path string) {
	l, err := Load(path, f.Stdin, f.BeforeParse)
	if err != nil {
		f.fail(errors.Unwrap(err))
		return
	}
	if l.Diags.HasErrors() {
		PrintDiagnostics(f.Stderr, l.Diags)
		f.BadInput = true
		return
	}
	// A file already in canonical form is its own output: comparing the
	// printer's output with it as it is made saves building it (fmt
	// --check on a canonical file). Text identical to the source parsed
	// without errors just now, so only a change needs proving that it
	// parses.
	out := l.Src
	changed := !format.Matches(l.Skill, l.Src)
	if changed {
		out = format.Source(l.Skill)
		if _, diags := grammar.Parse(l.Path, out); diags.HasErrors() {
			f.fail(fmt.Errorf("%s: internal error: the formatted text does not parse, file left unchanged:\n%v", l.Path, diags))
			return
		}
	}
	f.Differs = f.Differs || changed
	if f.List || f.Check {
		if changed {
			fmt.Fprintln(f.Stdout, l.Path)
		}
	}
	if f.Diff && changed {
		fmt.Fprint(f.Stdout, format.Diff(l.Path, l.Src, out))
	}
	if f.Write && changed {
		f.rewrite(path, l.Path)
	}
	if !f.List && !f.Check && !f.Diff && !f.Write {
		f.Stdout.Write(out)
	}
}

// rewrite formats the file at path in place through skillfile.Update: under
// the lock heals take, the file is formatted as it is then, so a heal
// written since it was read is kept. A symbolic link is followed and its
// target rewritten.
func (f *Fmt) rewrite(path, name string) {
	_, err := skillfile.Update(path, func(src []byte) ([]byte, error) {
		skill, diags := grammar.Parse(name, src)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s changed while it was being formatted and no longer parses; left as it is:\n%v", name, diags)
		}
		return format.Source(skill), nil
	})
	if err != nil {
		f.fail(err)
	}
}
