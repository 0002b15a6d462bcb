package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SpecTables reads SPEC.md and returns, for each heading that ends in
// "(contract)", the cells of its table's rows (header row and rule left out).
func SpecTables(t testing.TB) map[string][][]string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(Root(), "SPEC.md"))
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][][]string{}
	current := ""
	seenHeader := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			current = ""
			if name, ok := strings.CutSuffix(strings.TrimSpace(strings.TrimLeft(line, "#")), "(contract)"); ok {
				current = strings.TrimSpace(strings.TrimLeft(name, "0123456789. "))
				seenHeader = false
			}
		case current != "" && strings.HasPrefix(line, "|"):
			if !seenHeader || strings.HasPrefix(line, "| ---") {
				seenHeader = true
				continue
			}
			tables[current] = append(tables[current], splitRow(line))
		}
	}
	return tables
}

// splitRow cuts a Markdown table row into trimmed cells, honouring `\|`.
func splitRow(line string) []string {
	line = strings.Trim(strings.TrimSpace(line), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+1 < len(line) && line[i+1] == '|' {
			cur.WriteByte('|')
			i++
			continue
		}
		if line[i] == '|' {
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteByte(line[i])
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
