package format

import (
	"bufio"
	"bytes"
	"io"
	"iter"
	"slices"
	"strconv"

	"github.com/reelier/reelier/ast"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Source prints a skill in canonical form.
func Source(s *ast.Skill) []byte {
	var buf bytes.Buffer
	// A bytes.Buffer never fails to write, so neither does the printer.
	_ = Write(&buf, s, slices.Values(s.Steps))
	return buf.Bytes()
}

// Write prints a skill in canonical form to w, taking its steps from steps
// instead of s.Steps: a producer can hand over one step at a time and drop
// each once it is printed, so the whole tree never has to be in memory at
// once. The bytes are exactly what Source prints for the same skill. The
// first error w returns stops the printing and is returned.
func Write(w io.Writer, s *ast.Skill, steps iter.Seq[*ast.Step]) error {
	p := printer{eol: "\n"}
	if b, ok := w.(*bytes.Buffer); ok {
		p.w = b
	} else {
		p.w = bufio.NewWriter(w)
	}
	if s.CRLF {
		p.eol = "\r\n"
	}
	if s.BOM {
		p.w.Write(utf8BOM)
	}
	if fm := s.Frontmatter; fm != nil {
		if fm.Text != "" {
			// The frontmatter as written: YAML the printer has no
			// business restyling.
			p.w.WriteString(fm.Text)
		} else {
			p.frontmatter(fm)
		}
	}
	p.w.WriteString(s.Preamble.Text)
	// A blank line separates a step from whatever follows it: the next
	// step, its interlude or the trailing text. Whether one follows is
	// known only when the next step arrives, so the line is owed until then.
	owed := false
	for st := range steps {
		if owed {
			p.w.WriteString(p.eol)
		}
		p.step(st)
		owed = true
		if st.Interlude.Text != "" {
			p.w.WriteString(p.eol)
			p.w.WriteString(st.Interlude.Text)
			owed = false
		}
		if p.err() != nil {
			break
		}
	}
	if owed && s.Trailing.Text != "" {
		p.w.WriteString(p.eol)
	}
	p.w.WriteString(s.Trailing.Text)
	if bw, ok := p.w.(*bufio.Writer); ok {
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// output is what the printer writes to: a bytes.Buffer or a bufio.Writer.
type output interface {
	io.Writer
	io.StringWriter
}

type printer struct {
	w   output
	eol string
}

// err returns the error a buffered writer has met, which makes every
// later write a no-op.
func (p *printer) err() error {
	if bw, ok := p.w.(*bufio.Writer); ok {
		_, err := bw.Write(nil)
		return err
	}
	return nil
}

func (p *printer) line(s string) {
	p.w.WriteString(s)
	p.w.WriteString(p.eol)
}

func (p *printer) step(st *ast.Step) {
	p.line("### Step " + strconv.Itoa(st.Number) + " — " + st.Title)
	p.prose(st.LeadingProse)
	if st.Intent != nil {
		p.bullet(&st.Intent.Bullet, "intent", st.Intent.Text)
	}
	if a := st.Action; a != nil {
		p.bullet(&a.Bullet, "action", Action(a))
	}
	for _, a := range st.Asserts {
		p.bullet(&a.Bullet, "assert", Assert(a.Expr))
	}
	for _, b := range st.Binds {
		p.bullet(&b.Bullet, "bind", Bind(b.Expr))
	}
	if e := st.Effect; e != nil {
		p.bullet(&e.Bullet, "effect", string(e.Value))
	}
	p.prose(st.TrailingProse)
}

func (p *printer) bullet(b *ast.Bullet, key, value string) {
	p.prose(b.Leading)
	if value == "" {
		p.line("- " + key + ":")
		return
	}
	p.line("- " + key + ": " + value)
}

func (p *printer) prose(lines []ast.Prose) {
	for _, l := range lines {
		p.line(l.Text)
	}
}

// Action prints an action value: `<tool> <canonical-json>`.
func Action(a *ast.ActionField) string {
	if a.Args == nil {
		return a.Tool
	}
	return a.Tool + " " + Value(a.Args)
}
