package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/reelier/reelier/lang/ast"
)

// maxFrontmatterValue is the longest scalar the frontmatter holds, in
// bytes. Agent Skills cap a description at 1024 characters; the limit
// here only keeps a runaway value from becoming everyone's problem.
const maxFrontmatterValue = 64 << 10

// fmChunk is a run of frontmatter lines that YAML reads together: a line
// that opens a top-level key and the lines that continue its value.
// first and last index the parser's lines; last is the last line with
// content.
type fmChunk struct{ first, last int }

// readFrontmatter reads the lines strictly between the fences (indexes
// open+1 .. closing-1) into fm, and reports whether it stopped short of
// the closing fence (fmBudget).
//
// Each top-level key and its continuation lines are read by YAML on their
// own, so one bad value costs one entry and its diagnostic names the line.
// A line YAML cannot read that is `key: value` the way the original
// format reads it (the text after the colon, taken literally) is kept that
// way and marked Flat; the linter says how to write it as YAML.
func (p *docParser) readFrontmatter(fm *ast.Frontmatter, open, closing int) (cut bool) {
	var chunks []fmChunk
	var budget fmBudget
	cur := -1 // index into chunks of the open chunk
	for i := open + 1; i < closing; i++ {
		raw := p.text(p.line(i))
		trimmed := strings.TrimSpace(raw)
		indented := raw != "" && (raw[0] == ' ' || raw[0] == '\t')
		if over := budget.add(raw, !indented && isKeyLine(trimmed)); over != "" {
			// The lines from here on are kept as text, not read.
			p.report(0, CodeFrontmatterTooLarge, p.lineRange(p.line(i)), fmt.Sprintf(msgFrontmatterTooLarge, over))
			cut = true
			break
		}
		switch {
		case cur >= 0 && (trimmed == "" || indented || raw[0] == '-' || raw[0] == '#'):
			// The open key's value continues (a block scalar, a list, a
			// map) or a comment sits inside it.
			if trimmed != "" && raw[0] != '#' {
				chunks[cur].last = i
			}
		case trimmed == "" || trimmed[0] == '#':
		case isKeyLine(trimmed):
			chunks = append(chunks, fmChunk{first: i, last: i})
			cur = len(chunks) - 1
		default:
			cur = -1
			p.report(0, CodeFrontmatterLine, p.lineRange(p.line(i)), fmt.Sprintf(msgFrontmatterLine, trimmed))
		}
	}
	seen := map[string]*ast.FrontmatterEntry{}
	for _, c := range chunks {
		for _, e := range p.readChunk(c) {
			if first := seen[e.Key]; first != nil {
				p.report(0, CodeDuplicateKey, e.KeyRange, fmt.Sprintf(msgDuplicateKey, e.Key, first.KeyRange.Start.Line))
			} else {
				seen[e.Key] = e
			}
			fm.Entries = append(fm.Entries, e)
		}
	}
	return cut
}

// fmBudget counts what reading the frontmatter as YAML costs: each key
// is one YAML read (kilobytes whatever its size), each bracket may open a
// level of nesting and each line or comma may hold a list or map item,
// which cost YAML hundreds of bytes each. An Agent Skills frontmatter is a
// few short keys; past maxFrontmatterKeys keys, maxFrontmatterBrackets
// brackets or maxFrontmatterItems lines and commas the rest is not read.
type fmBudget struct{ keys, brackets, items int }

// add counts a line and says which bound it crosses, or "".
func (b *fmBudget) add(raw string, key bool) string {
	if key {
		b.keys++
	}
	b.brackets += strings.Count(raw, "[") + strings.Count(raw, "{")
	b.items += 1 + strings.Count(raw, ",")
	switch {
	case b.keys > maxFrontmatterKeys:
		return fmt.Sprintf("more than %d keys", maxFrontmatterKeys)
	case b.brackets > maxFrontmatterBrackets:
		return fmt.Sprintf("more than %d brackets ('[' and '{')", maxFrontmatterBrackets)
	case b.items > maxFrontmatterItems:
		return fmt.Sprintf("more than %d lines and commas", maxFrontmatterItems)
	}
	return ""
}

// isKeyLine reports whether a trimmed line opens a key: a frontmatter key
// (a letter or '_', then letters, digits, '_' or '-'), blanks, a colon.
func isKeyLine(s string) bool {
	i := 0
	for i < len(s) && (isLetter(s[i]) || s[i] == '_' || i > 0 && (isDigit(s[i]) || s[i] == '-')) {
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i < len(s) && s[i] == ':'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// readChunk reads one chunk: as YAML when it is a YAML map, otherwise line
// by line the original's way, otherwise it reports YAML's complaint at
// the line YAML names.
func (p *docParser) readChunk(c fmChunk) []*ast.FrontmatterEntry {
	// The text YAML reads ends with the last line's terminator, so that a
	// `|` block ends in a newline as it does in the whole file.
	start, end := p.line(c.first).start, p.line(c.last).end
	if i := yamlBreak(p.src[start:end]); i >= 0 {
		// YAML would count lines differently from everyone else.
		at := p.table.pos(start + i)
		p.report(0, CodeUnsupportedFrontmatter, p.table.span(start+i, p.line(int(at.Line-1)).end), fmt.Sprintf(msgUnsupportedFrontmatter, "a character YAML reads as a line break inside a line (a lone carriage return, U+0085, U+2028 or U+2029)"))
		return p.flatEntries(c)
	}
	var doc yaml.Node
	err := yaml.Unmarshal([]byte(p.src[start:p.line(c.last).next]), &doc)
	// YAML must see the key the line starts with: `description:a: b` is
	// a YAML map whose key is "description:a".
	key := strings.TrimSpace(p.text(p.line(c.first)))
	key = strings.TrimRight(key[:strings.IndexByte(key, ':')], " \t")
	if err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode && len(doc.Content[0].Content) > 0 && doc.Content[0].Content[0].Value == key {
		r := &yamlReader{p: p, first: c.first, end: end}
		return r.entries(doc.Content[0], "")
	}
	if flat := p.flatEntries(c); flat != nil {
		return flat
	}
	at, msg := c.first, ""
	if err != nil {
		at = p.failingLine(c)
		msg = yamlMessage(err)
	}
	text := strings.TrimSpace(p.text(p.line(at)))
	if msg != "" {
		text += " (" + msg + ")"
	}
	p.report(0, CodeFrontmatterLine, p.lineRange(p.line(at)), fmt.Sprintf(msgFrontmatterLine, text))
	return nil
}

// yamlBreak returns the offset of the first character in s that YAML
// reads as a line break but a line of the file does not end at, or -1.
func yamlBreak(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n'):
			return i
		case s[i] == 0xC2 && i+1 < len(s) && s[i+1] == 0x85,
			s[i] == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
			return i
		}
	}
	return -1
}

// failingLine returns the first line of c at which YAML stops reading
// it: the last line of the shortest failing prefix. YAML's own line
// numbers are not used, since some of its errors count from zero and
// others from one. A prefix that fails stays failing as lines are added,
// so a binary search finds it in a few reads.
func (p *docParser) failingLine(c fmChunk) int {
	start := p.line(c.first).start
	fails := func(last int) bool {
		var n yaml.Node
		return yaml.Unmarshal([]byte(p.src[start:p.line(last).end]), &n) != nil
	}
	lo, hi := c.first, c.last
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// yamlMessage is YAML's complaint without its "yaml: line N:" prefix.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if _, convErr := strconv.Atoi(n); convErr == nil {
				msg = tail
			}
		}
	}
	return msg
}

// flatEntries reads a one-line chunk the way the original format does,
// the text after the colon taken literally, or returns nil when the chunk
// has more lines or the line is not of that shape.
func (p *docParser) flatEntries(c fmChunk) []*ast.FrontmatterEntry {
	var out []*ast.FrontmatterEntry
	if c.last != c.first {
		return nil
	}
	for i := c.first; i <= c.last; i++ {
		l := p.line(i)
		raw := p.text(l)
		trimmed := strings.TrimSpace(raw)
		g, err := keyValueParser().ParseString("", trimmed)
		if err != nil || !isFrontmatterKey(g.Key.Value) {
			return nil
		}
		org := l.at(strings.Index(raw, trimmed))
		e := &ast.FrontmatterEntry{
			Key: g.Key.Value, Value: g.Value.Value, Type: "str", KeyType: "str", Flat: true,
			Range:    org.span(0, len(trimmed)),
			KeyRange: org.span(g.Key.Pos.Offset, g.Key.Pos.Offset+len(g.Key.Value)),
		}
		if g.Value.Value != "" {
			e.ValueRange = org.span(g.Value.Pos.Offset, g.Value.Pos.Offset+len(g.Value.Value))
		} else {
			e.ValueRange = org.span(len(trimmed), len(trimmed))
		}
		out = append(out, e)
	}
	return out
}

// yamlReader turns the nodes of one chunk into entries, checking the
// subset as it goes. first is the index of the chunk's first line, end the
// byte offset where the chunk's text ends.
type yamlReader struct {
	p     *docParser
	first int
	end   int
}

// offset returns the byte offset of a node: YAML counts lines from the
// chunk's first and columns in characters.
func (r *yamlReader) offset(n *yaml.Node) int {
	idx := r.first + n.Line - 1
	if n.Line < 1 || idx >= len(r.p.lines) {
		return r.end
	}
	l := r.p.line(idx)
	if l.ascii() {
		return l.start + min(max(n.Column-1, 0), len(l.text))
	}
	off := l.start
	if x := l.index(); x != nil {
		off += x.offset(n.Column)
	}
	for col := l.column(off - l.start); col < n.Column && off < l.end; col++ {
		_, size := utf8.DecodeRuneInString(r.p.src[off:l.end])
		off += size
	}
	return off
}

func (r *yamlReader) rangeOf(start, end int) ast.Range { return r.p.table.span(start, end) }

// entries reads the pairs of a map node. parent is the key of the map
// being read, "" at the top level.
func (r *yamlReader) entries(m *yaml.Node, parent string) []*ast.FrontmatterEntry {
	var out []*ast.FrontmatterEntry
	seen := map[string]*ast.FrontmatterEntry{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		limit := r.extent(m, i+2, v, r.end)
		if !r.subset(k, "a key") {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			r.unsupported(k, "a key that is not text")
			continue
		}
		kstart := r.offset(k)
		e := &ast.FrontmatterEntry{Key: k.Value, KeyType: shortType(k)}
		e.KeyRange = r.rangeOf(kstart, r.scalarEnd(kstart, k, limit))
		if !r.value(e, v, parent, limit) {
			continue
		}
		e.Range = ast.Range{Start: e.KeyRange.Start, End: e.ValueRange.End}
		if parent != "" {
			if first := seen[e.Key]; first != nil {
				r.p.report(0, CodeDuplicateKey, e.KeyRange, fmt.Sprintf(msgDuplicateKey, parent+"."+e.Key, first.KeyRange.Start.Line))
			} else {
				seen[e.Key] = e
			}
		}
		out = append(out, e)
	}
	return out
}

// extent returns how far the node n of the collection c may extend: to
// the start of c.Content[next] when there is one; after the last, to
// limit, or in a flow collection ({…}, […]) to its closing bracket.
func (r *yamlReader) extent(c *yaml.Node, next int, n *yaml.Node, limit int) int {
	switch {
	case next < len(c.Content):
		return r.offset(c.Content[next])
	case c.Style&yaml.FlowStyle != 0:
		return r.closing(r.offset(n), limit)
	}
	return limit
}

// value fills e from the value node v, reporting what the subset does not
// allow. It returns false when the entry is dropped.
func (r *yamlReader) value(e *ast.FrontmatterEntry, v *yaml.Node, parent string, limit int) bool {
	if !r.subset(v, "a value") {
		return false
	}
	name := e.Key
	if parent != "" {
		name = parent + "." + e.Key
	}
	switch v.Kind {
	case yaml.ScalarNode:
		return r.scalar(e, v, limit)
	case yaml.SequenceNode, yaml.MappingNode:
		if parent != "" {
			r.unsupported(v, fmt.Sprintf("a list or map inside %s (values nest one level: a list of texts or a map of texts)", parent))
			return false
		}
		start := r.offset(v)
		end := start
		if v.Kind == yaml.MappingNode {
			e.Kind = ast.MapValue
			e.Items = r.entries(v, name)
			if len(e.Items) > 0 {
				end = int(e.Items[len(e.Items)-1].ValueRange.End.Offset)
			}
		} else {
			e.Kind = ast.ListValue
			for j, it := range v.Content {
				itLimit := r.extent(v, j+1, it, limit)
				if !r.subset(it, "a list item") {
					continue
				}
				if it.Kind != yaml.ScalarNode {
					r.unsupported(it, fmt.Sprintf("a list or map inside %s (values nest one level: a list of texts or a map of texts)", name))
					continue
				}
				item := &ast.FrontmatterEntry{}
				if r.scalar(item, it, itLimit) {
					item.Range = item.ValueRange
					e.Items = append(e.Items, item)
					end = int(item.ValueRange.End.Offset)
				}
			}
		}
		if v.Style&yaml.FlowStyle != 0 {
			// The closing bracket belongs to the value.
			end = r.closing(end, limit)
			if end < limit && (r.p.src[end] == ']' || r.p.src[end] == '}') {
				end++
			}
		}
		e.ValueRange = r.rangeOf(start, max(start, end))
		return true
	}
	r.unsupported(v, "a value of this kind")
	return false
}

// closing returns the offset of the first ']' or '}' at or after from, or
// limit.
func (r *yamlReader) closing(from, limit int) int {
	if i := strings.IndexAny(r.p.src[from:limit], "]}"); i >= 0 {
		return from + i
	}
	return limit
}

// scalar fills e from a scalar node.
func (r *yamlReader) scalar(e *ast.FrontmatterEntry, v *yaml.Node, limit int) bool {
	e.Kind, e.Value, e.Type = ast.ScalarValue, v.Value, shortType(v)
	if v.Tag == "!!null" && v.Value == "" && v.Style == 0 {
		// `key:` with nothing after it: an empty value at the end of the
		// key's line; an empty list item where YAML puts it.
		at := min(r.offset(v), r.end)
		if e.Key != "" || e.KeyRange.End.Offset > 0 {
			at = r.emptyAt(e)
		}
		e.ValueRange = r.rangeOf(at, at)
		return true
	}
	start := r.offset(v)
	end := r.scalarEnd(start, v, limit)
	if end-start > maxFrontmatterValue {
		// Reported, and kept: a missing-field error on top would mislead.
		r.unsupported(v, fmt.Sprintf("a value of %d bytes (at most %d)", end-start, maxFrontmatterValue))
	}
	e.ValueRange = r.rangeOf(start, end)
	return true
}

// emptyAt is where an empty value sits: after the key's colon, at the end
// of its line's text.
func (r *yamlReader) emptyAt(e *ast.FrontmatterEntry) int {
	off := int(e.KeyRange.End.Offset)
	n := int(e.KeyRange.Start.Line)
	if n < 1 || n > len(r.p.lines) || off > r.p.line(n-1).end {
		return off
	}
	l := r.p.line(n - 1)
	text := strings.TrimRight(r.p.src[off:l.end], " \t")
	if i := strings.Index(text, " #"); i >= 0 {
		text = strings.TrimRight(text[:i], " \t")
	}
	return off + len(text)
}

// scalarEnd returns the offset just past a scalar written at start, within
// limit: the closing quote of a quoted one, the last text of a plain or
// block one.
func (r *yamlReader) scalarEnd(start int, n *yaml.Node, limit int) int {
	src := r.p.src
	if limit > len(src) || limit < start {
		limit = len(src)
	}
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := start + 1; i < limit; i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := start + 1; i < limit; i++ {
			if src[i] == '\'' {
				if i+1 < limit && src[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && strings.HasPrefix(src[start:limit], n.Value):
		// A plain scalar on one line is written as it reads.
		return start + len(n.Value)
	}
	// A block scalar, or a plain one folded over several lines: up to the
	// last text before the next key, comments after it left out.
	text := src[start:limit]
	end := len(strings.TrimRight(text, " \t\r\n"))
	for end > 0 {
		ls := strings.LastIndexByte(text[:end], '\n') + 1
		if t := strings.TrimSpace(text[ls:end]); ls > 0 && strings.HasPrefix(t, "#") && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			end = len(strings.TrimRight(text[:ls], " \t\r\n"))
			continue
		}
		break
	}
	return start + end
}

// subset reports what n breaks of the subset, and whether to read it.
func (r *yamlReader) subset(n *yaml.Node, what string) bool {
	// An anchor or a tag is reported and the value read as if it were
	// not there; an alias has no value of its own and is dropped.
	switch {
	case n.Kind == yaml.AliasNode:
		r.unsupported(n, fmt.Sprintf("an alias (*%s) as %s", n.Value, what))
		return false
	case n.Anchor != "":
		r.unsupported(n, fmt.Sprintf("an anchor (&%s) on %s", n.Anchor, what))
	case n.Style&yaml.TaggedStyle != 0:
		r.unsupported(n, fmt.Sprintf("a tag (%s) on %s", n.Tag, what))
	}
	return true
}

func (r *yamlReader) unsupported(n *yaml.Node, what string) {
	at := r.offset(n)
	end := at
	if pos := r.p.table.pos(at); pos.Line >= 1 && int(pos.Line) <= len(r.p.lines) {
		end = max(at, r.p.line(int(pos.Line-1)).end)
	}
	r.p.report(0, CodeUnsupportedFrontmatter, r.rangeOf(at, end), fmt.Sprintf(msgUnsupportedFrontmatter, what))
}

// shortType is the YAML type a node reads as, without the "!!".
func shortType(n *yaml.Node) string {
	return strings.TrimPrefix(n.ShortTag(), "!!")
}
