package grammar

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
)

// TestColIndex: a colIndex gives ast.Column's answer for every offset of
// long texts mixing ASCII, multi-byte characters and invalid bytes, and
// an origin built on one — for the whole text or for any tail of it —
// counts the columns that walking its own text counts.
func TestColIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 17))
	pieces := []string{"a", " ", "\t", "é", "中", "😀", "\xff", "\xe4\xb8", "\x80", "{{x}}"}
	texts := map[string]string{
		"multi-byte at every stride": strings.Repeat("ab😀", 300),
		"one character at the end":   strings.Repeat("x", 3*colStride) + "é",
		"invalid bytes":              strings.Repeat("\xf0\x9f\x98", 200),
	}
	for n := range 20 {
		var b strings.Builder
		for b.Len() < 300+n*97 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts["random "+string(rune('a'+n))] = b.String()
	}
	for name, text := range texts {
		x := newColIndex(text)
		if x == nil {
			t.Fatalf("%s: no index for %d bytes", name, len(text))
		}
		for off := 0; off <= len(text)+3; off++ {
			if got, want := x.column(off), ast.Column(text, off); got != want {
				t.Fatalf("%s: column(%d) = %d, want %d", name, off, got, want)
			}
		}
		base := ast.Pos{Offset: 1000, Line: 4, Column: 3}
		whole := fragment(base, text)
		for _, k := range []int{0, 1, 2, 3, 5, colStride - 1, colStride, colStride + 1, len(text) / 2, len(text) - 1} {
			tail := whole.from(k)
			if want := base.Column + int32(ast.Column(text, k)) - 1; tail.Column != want {
				t.Fatalf("%s: from(%d) at column %d, want %d", name, k, tail.Column, want)
			}
			slow := origin{Pos: tail.Pos, text: tail.text}
			for _, j := range []int{0, 1, 4, 7, colStride, len(tail.text) - 1, len(tail.text)} {
				if got, want := tail.at(j), slow.at(j); got != want {
					t.Fatalf("%s: from(%d).at(%d) = %+v, want %+v", name, k, j, got, want)
				}
			}
		}
	}
}
