package lint

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
)

// TestTextOutputEscapes: a lint message that quotes the skill cannot
// repaint the terminal; the other formats keep the text as written.
func TestTextOutputEscapes(t *testing.T) {
	d, err := New(Config{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(sample, "- effect: read\n", "- effect: may\x1b[2J\rbe\u202e\n", 1)
	f := ParseFile("skills/evil\x1b[1m.skill.md", []byte(src))
	results := []Result{{File: f.Name, Diagnostics: append(d.Run(f), ast.Diagnostic{
		File: f.Name, Severity: ast.SeverityWarning, Message: "quoted \x1b]0;owned\x07", Detail: "line one\x1b[K\nline two\u2066", Code: "x"})}}
	var b bytes.Buffer
	if err := Write(&b, FormatText, d, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"\x1b", "\r", "\a", "\u202e", "\u2066"} {
		if strings.Contains(out, bad) {
			t.Errorf("text output holds %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{`skills/evil\x1b[1m.skill.md:`, `may\x1b[2J\rbe\u202e`, `quoted \x1b]0;owned\x07 [x]` + "\n\tline one\\x1b[K\n\tline two\\u2066\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	if err := Write(&b, FormatJSON, d, results); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `\u001b`) {
		t.Errorf("json output lost the text as written:\n%s", b.String())
	}
}
