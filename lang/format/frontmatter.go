package format

import (
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
