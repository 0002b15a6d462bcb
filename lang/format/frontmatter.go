package format

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/reelier/reelier/lang/ast"
)

// frontmatter prints a frontmatter built in code: one line per scalar,
// lists and maps as YAML blocks indented by two spaces.
func (p *printer) frontmatter(fm *ast.Frontmatter) {
	p.line("---")
	for _, e := range fm.Entries {
		switch e.Kind {
		case ast.ListValue:
			p.line(e.Key + ":")
			for _, it := range e.Items {
				p.line("  - " + Scalar(it.Value))
			}
		case ast.MapValue:
			p.line(e.Key + ":")
			for _, it := range e.Items {
				if lines, ok := literalBlock(it.Value); ok {
					p.line("  " + Scalar(it.Key) + ": |-")
					for _, l := range lines {
						p.line("    " + l)
					}
					continue
				}
				p.line("  " + Scalar(it.Key) + ": " + Scalar(it.Value))
			}
		default:
			if e.Value == "" {
				p.line(e.Key + ":")
			} else {
				p.line(e.Key + ": " + Scalar(e.Value))
			}
		}
	}
	p.line("---")
}

// Scalar writes s as a YAML scalar that reads back as the string s: plain
// when YAML reads the plain text as that string, double-quoted otherwise.
func Scalar(s string) string {
	if plainReadsAs(s) {
		return s
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	out, err := yaml.Marshal(n)
	if err != nil {
		return `""`
	}
	return strings.TrimSuffix(string(out), "\n")
}

// literalBlock returns the lines of a text of several lines that a YAML
// literal block (`|-`) reads back exactly: no blank or blank-led line,
// no trailing blank, nothing but printable text. A map value such as
// reelier-tools, one line per item, then stays one line per item.
func literalBlock(s string) ([]string, bool) {
	if !strings.Contains(s, "\n") {
		return nil, false
	}
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if l == "" || l[0] == ' ' || l[0] == '#' || strings.TrimRight(l, " ") != l {
			return nil, false
		}
		for _, r := range l {
			if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff {
				return nil, false
			}
		}
	}
	// Check the reading, as plainReadsAs does.
	var v map[string]string
	doc := "k: |-\n  " + strings.Join(lines, "\n  ") + "\n"
	if yaml.Unmarshal([]byte(doc), &v) != nil || v["k"] != s {
		return nil, false
	}
	return lines, true
}

// plainReadsAs reports whether YAML reads the plain one-line text s as the
// string s.
func plainReadsAs(s string) bool {
	if s == "" || strings.ContainsAny(s, "\n\r\t") || strings.TrimSpace(s) != s {
		return false
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("k: "+s), &n); err != nil {
		return false
	}
	if len(n.Content) != 1 || len(n.Content[0].Content) != 2 {
		return false
	}
	v := n.Content[0].Content[1]
	return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == s && v.Style == 0
}

// SetMetadata returns the file src, parsed as fm, with the metadata map's
// entry key set to value: the entry replaced where it is, added at the
// end of a block metadata map, or a metadata map added before the closing
// fence. The rest of the file is left byte for byte. A value of several
// lines is written as a literal block (`|-`) where one reads it back,
// double-quoted otherwise. A metadata map written in flow style (`{…}`),
// or a metadata key that is not a map, is left alone with an error.
func SetMetadata(src []byte, fm *ast.Frontmatter, crlf bool, key, value string) ([]byte, error) {
	if fm == nil || fm.Text == "" {
		return nil, errors.New("the skill has no frontmatter to write metadata into")
	}
	eol := "\n"
	if crlf {
		eol = "\r\n"
	}
	// item writes the entry indented like the map's other entries.
	item := func(indent string) string {
		if lines, ok := literalBlock(value); ok {
			return indent + Scalar(key) + ": |-" + eol + indent + "  " + strings.Join(lines, eol+indent+"  ")
		}
		return indent + Scalar(key) + ": " + Scalar(value)
	}
	lineStart := func(off int) int {
		for off > 0 && src[off-1] != '\n' {
			off--
		}
		return off
	}
	lineEnd := func(off int) int {
		for off < len(src) && src[off] != '\n' {
			off++
		}
		if off > 0 && off <= len(src) && src[off-1] == '\r' {
			off--
		}
		return off
	}
	splice := func(from, to int, text string) []byte {
		out := make([]byte, 0, len(src)+len(text))
		out = append(out, src[:from]...)
		out = append(out, text...)
		return append(out, src[to:]...)
	}
	md := fm.Lookup("metadata")
	if md == nil {
		closing := lineStart(int(fm.Range.End.Offset))
		if int(fm.Range.End.Offset) > len(src) || closing == 0 {
			return nil, errors.New("the frontmatter's closing fence was not found")
		}
		// The closing fence is the frontmatter's last line; Range.End may
		// sit at its end or just after it.
		if strings.TrimSpace(string(src[closing:lineEnd(closing)])) != "---" {
			closing = lineStart(closing - 1)
		}
		return splice(closing, closing, "metadata:"+eol+item("  ")+eol), nil
	}
	if md.Kind == ast.ScalarValue && md.Type == "null" && md.ValueRange.Start.Offset == md.ValueRange.End.Offset {
		// `metadata:` with nothing under it yet.
		at := lineEnd(int(md.KeyRange.Start.Offset))
		return splice(at, at, eol+item("  ")), nil
	}
	if md.Kind != ast.MapValue || (len(md.Items) > 0 && md.ValueRange.Start.Line == md.KeyRange.Start.Line) {
		return nil, fmt.Errorf("line %d: metadata is not a block map (one `key: value` a line); write it as one to add %s", md.KeyRange.Start.Line, key)
	}
	indent := "  "
	if len(md.Items) > 0 {
		first := int(md.Items[0].KeyRange.Start.Offset)
		ls := lineStart(first)
		if strings.Trim(string(src[ls:first]), " ") != "" {
			return nil, fmt.Errorf("line %d: metadata's entries are not one a line; write it as a block map to add %s", md.KeyRange.Start.Line, key)
		}
		indent = string(src[ls:first])
	}
	if e := md.Lookup(key); e != nil {
		from := lineStart(int(e.KeyRange.Start.Offset))
		to := lineEnd(int(e.ValueRange.End.Offset))
		if int(e.ValueRange.End.Offset) > 0 && int(e.ValueRange.End.Offset) <= len(src) && src[int(e.ValueRange.End.Offset)-1] == '\n' {
			// A block value's range may end after its last line break.
			to = lineEnd(int(e.ValueRange.End.Offset) - 1)
		}
		return splice(from, to, item(indent)), nil
	}
	if len(md.Items) == 0 {
		at := lineEnd(int(md.KeyRange.Start.Offset))
		return splice(at, at, eol+item(indent)), nil
	}
	last := md.Items[len(md.Items)-1]
	endOff := int(last.ValueRange.End.Offset)
	if endOff > 0 && endOff <= len(src) && src[endOff-1] == '\n' {
		endOff--
	}
	at := lineEnd(endOff)
	return splice(at, at, eol+item(indent)), nil
}
