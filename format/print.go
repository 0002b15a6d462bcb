package format

import (
	"bytes"
	"strconv"

	"github.com/reelier/reelier/ast"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Source prints a skill in canonical form.
func Source(s *ast.Skill) []byte {
	p := printer{eol: "\n"}
	if s.CRLF {
		p.eol = "\r\n"
	}
	if s.BOM {
		p.buf.Write(utf8BOM)
	}
	if fm := s.Frontmatter; fm != nil {
		p.line("---")
		for _, e := range fm.Entries {
			if e.Value == "" {
				p.line(e.Key + ":")
			} else {
				p.line(e.Key + ": " + e.Value)
			}
		}
		p.line("---")
	}
	p.buf.WriteString(s.Preamble.Text)
	for i, st := range s.Steps {
		p.step(st)
		last := i == len(s.Steps)-1
		if !last || s.Trailing.Text != "" || st.Interlude.Text != "" {
			p.buf.WriteString(p.eol)
		}
		p.buf.WriteString(st.Interlude.Text)
	}
	p.buf.WriteString(s.Trailing.Text)
	return p.buf.Bytes()
}

type printer struct {
	buf bytes.Buffer
	eol string
}

func (p *printer) line(s string) {
	p.buf.WriteString(s)
	p.buf.WriteString(p.eol)
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
