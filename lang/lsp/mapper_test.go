package lsp_test

import (
	"testing"
	"unicode/utf16"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/lsp"
	"go.lsp.dev/protocol"
)

// TestMapper converts offsets to positions and back on text with em
// dashes (3 bytes, 1 UTF-16 unit), emoji (4 bytes, a surrogate pair), a
// BOM, CRLF and lone CR line ends, and invalid UTF-8.
func TestMapper(t *testing.T) {
	cases := []struct {
		name string
		text string
		off  int // text offset
		want protocol.Position
	}{
		{"ascii", "abc\ndef", 5, pos(1, 1)},
		{"after em dash", "### Step 1 — Title", len("### Step 1 — T"), pos(0, 14)},
		{"em dash itself", "a—b", 1, pos(0, 1)},
		{"after em dash char", "a—b", 4, pos(0, 2)},
		{"after emoji", "🙂x", 4, pos(0, 2)},
		{"inside emoji", "🙂x", 2, pos(0, 0)},
		{"after two emoji", "x\n🙂🙂 — {{id}}", 2 + 8 + 5 + 2, pos(1, 9)},
		{"crlf", "ab\r\ncd", 5, pos(1, 1)},
		{"before crlf", "ab\r\ncd", 2, pos(0, 2)},
		{"lone cr", "ab\rcd", 4, pos(1, 1)},
		{"end of text", "ab\n", 3, pos(1, 0)},
		{"past the end", "ab", 99, pos(0, 2)},
		{"invalid utf-8", "a\xffb", 2, pos(0, 2)},
		{"bom", "\xEF\xBB\xBFab", 4, pos(0, 2)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := lsp.NewMapper(c.text)
			if got := m.TextPosition(c.off); got != c.want {
				t.Errorf("TextPosition(%d) = %v, want %v", c.off, got, c.want)
			}
		})
	}
}

// TestMapperRoundTrip checks, at every character boundary of a mixed
// text, that offset → position → offset is the identity and that the
// column equals the UTF-16 length of the line's text before the offset.
func TestMapperRoundTrip(t *testing.T) {
	text := "---\nname: x — y\n---\n### Step 1 — 🙂 Fetch\r\n- action: t {\"a\": \"𝄞{{id}}—\"}\rlast"
	m := lsp.NewMapper(text)
	line, lineStart := 0, 0
	for i := 0; i <= len(text); {
		want := pos(uint32(line), uint32(len(utf16.Encode([]rune(text[lineStart:i])))))
		if got := m.TextPosition(i); got != want {
			t.Fatalf("TextPosition(%d) = %v, want %v", i, got, want)
		}
		back, err := m.TextOffset(want)
		if err != nil || back != i {
			t.Fatalf("TextOffset(%v) = %d, %v; want %d", want, back, err, i)
		}
		if i == len(text) {
			break
		}
		size := len(string([]rune(text[i:])[0]))
		switch {
		case text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n':
			i += 2
			line, lineStart = line+1, i
		case text[i] == '\r' || text[i] == '\n':
			i++
			line, lineStart = line+1, i
		default:
			i += size
		}
	}
}

// TestMapperClamps: a column past the end of its line means the end of the
// line, a column inside a surrogate pair means the start of the character,
// the start of the line after the last means the end of the text, and any
// other line past the end is an error.
func TestMapperClamps(t *testing.T) {
	m := lsp.NewMapper("🙂ab\r\nc")
	for _, c := range []struct {
		p    protocol.Position
		want int
	}{
		{pos(0, 1), 0}, {pos(0, 2), 4}, {pos(0, 99), 6}, {pos(1, 99), 9},
	} {
		if got, err := m.TextOffset(c.p); err != nil || got != c.want {
			t.Errorf("TextOffset(%v) = %d, %v; want %d", c.p, got, err, c.want)
		}
	}
	if got, err := m.TextOffset(pos(2, 0)); err != nil || got != 9 {
		t.Errorf("the line after the last, column 0: %d, %v; want the end of the text", got, err)
	}
	if _, err := m.TextOffset(pos(2, 1)); err == nil {
		t.Error("a line past the end must be an error")
	}
	if _, err := m.TextOffset(pos(3, 0)); err == nil {
		t.Error("a line past the end must be an error")
	}
}

// TestMapperTreeOffsets: tree offsets count from after the BOM.
func TestMapperTreeOffsets(t *testing.T) {
	m := lsp.NewMapper("\xEF\xBB\xBF—x\ny")
	r := m.Range(ast.Range{Start: ast.Pos{Offset: 3}, End: ast.Pos{Offset: 5}})
	if want := rng(0, 2, 1, 0); r != want {
		t.Errorf("Range = %v, want %v", r, want)
	}
	off, err := m.Offset(pos(0, 2))
	if err != nil || off != 3 {
		t.Errorf("Offset = %d, %v; want 3", off, err)
	}
	if got := m.Slice(ast.Range{Start: ast.Pos{Offset: 0}, End: ast.Pos{Offset: 4}}); got != "—x" {
		t.Errorf("Slice = %q", got)
	}
}
