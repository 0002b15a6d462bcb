package format

import (
	"bufio"
	"bytes"
	"io"
	"iter"
	"slices"
	"strconv"

	"github.com/reelier/reelier/lang/ast"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Source prints a skill in canonical form.
func Source(s *ast.Skill) []byte {
	var buf bytes.Buffer
	// A parsed skill's canonical form is about as long as its file: room
	// for that (and a little more) saves growing the buffer step by step.
	if n := int(s.Trailing.Range.End.Offset) + len(s.Trailing.Text); n > 0 {
		buf.Grow(n + n/16)
	}
	// A bytes.Buffer never fails to write, so neither does the printer.
	_ = Write(&buf, s, slices.Values(s.Steps))
	return buf.Bytes()
}

// Matches reports whether Source(s) is exactly src, without building it:
// the printer's output is compared with src as it is made, and once it
// differs nothing more is compared. `reelier fmt --check` on a file that is
// already canonical needs no more than this.
func Matches(s *ast.Skill, src []byte) bool {
	c := &comparer{src: src}
	p := printer{w: c}
	p.print(s, slices.Values(s.Steps))
	return !c.differs && c.off == len(src)
}

// comparer is an output that compares what is written with src.
type comparer struct {
	src     []byte
	off     int
	differs bool
}

func (c *comparer) Write(b []byte) (int, error) {
	if !c.differs {
		if len(b) > len(c.src)-c.off || !bytes.Equal(b, c.src[c.off:c.off+len(b)]) {
			c.differs = true
		}
		c.off += len(b)
	}
	return len(b), nil
}

func (c *comparer) WriteString(s string) (int, error) {
	if !c.differs {
		if len(s) > len(c.src)-c.off || s != string(c.src[c.off:c.off+len(s)]) {
			c.differs = true
		}
		c.off += len(s)
	}
	return len(s), nil
}

// Write prints a skill in canonical form to w, taking its steps from steps
// instead of s.Steps: a producer can hand over one step at a time and drop
// each once it is printed, so the whole tree never has to be in memory at
// once. The bytes are exactly what Source prints for the same skill. The
// first error w returns stops the printing and is returned.
func Write(w io.Writer, s *ast.Skill, steps iter.Seq[*ast.Step]) error {
	var p printer
	if b, ok := w.(*bytes.Buffer); ok {
		p.w = b
	} else {
		p.w = bufio.NewWriter(w)
	}
	p.print(s, steps)
	if bw, ok := p.w.(*bufio.Writer); ok {
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// print prints the skill to p.w.
func (p *printer) print(s *ast.Skill, steps iter.Seq[*ast.Step]) {
	p.eol = "\n"
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
}

// output is what the printer writes to: a bytes.Buffer or a bufio.Writer.
type output interface {
	io.Writer
	io.StringWriter
}

type printer struct {
	w   output
	eol string
	// buf is where a line is put together before it is written whole;
	// keyEnd is where a bullet's value starts in it.
	buf    []byte
	keyEnd int
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
	b := append(p.buf[:0], "### Step "...)
	b = strconv.AppendInt(b, int64(st.Number), 10)
	b = append(b, " — "...)
	b = append(b, st.Title...)
	p.writeLine(b)
	p.prose(st.LeadingProse)
	if st.Intent != nil {
		p.bullet(&st.Intent.Bullet, "intent", st.Intent.Text)
	}
	if a := st.Action; a != nil {
		p.prose(a.Leading)
		b := p.key("action")
		b = append(b, a.Tool...)
		if a.Args != nil {
			b = append(b, ' ')
			b = appendValue(b, a.Args)
		}
		p.endBullet(b)
	}
	for _, a := range st.Asserts {
		p.prose(a.Leading)
		p.endBullet(appendAssert(p.key("assert"), a.Expr))
	}
	for _, x := range st.Binds {
		p.prose(x.Leading)
		p.endBullet(appendBind(p.key("bind"), x.Expr))
	}
	if e := st.Effect; e != nil {
		p.bullet(&e.Bullet, "effect", string(e.Value))
	}
	p.prose(st.TrailingProse)
}

func (p *printer) bullet(b *ast.Bullet, key, value string) {
	p.prose(b.Leading)
	p.endBullet(append(p.key(key), value...))
}

// key starts a bullet's line in p.buf: `- key: `, its value to follow.
func (p *printer) key(key string) []byte {
	b := append(p.buf[:0], "- "...)
	b = append(b, key...)
	p.keyEnd = len(b) + 2
	return append(b, ": "...)
}

// endBullet writes the bullet line b started by key; without a value
// after the key it is `- key:`, without the space.
func (p *printer) endBullet(b []byte) {
	if len(b) == p.keyEnd {
		b = b[:len(b)-1]
	}
	p.writeLine(b)
}

// writeLine writes b, a line put together in p.buf, and the line ending,
// keeping b's memory for the next line.
func (p *printer) writeLine(b []byte) {
	b = append(b, p.eol...)
	p.w.Write(b)
	p.buf = b[:0]
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
