package compile_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

// rowsTrace is a trace of n read-then-write triples shaped like the SQLite
// workflows: a read of 20 rows (one active), an empty read, then a write
// whose SQL text holds the active row's short id after its key, a count
// and a total of the rows, a number nothing explains and 40 more short
// numbers — every path of rowfacts.go, n times.
func rowsTrace(t *testing.T, n int) []byte {
	rec, err := os.ReadFile(filepath.Join("testdata", "traces", "73-sqlite-customer-upgrade.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	meta, _, _ := strings.Cut(string(rec), "\n")
	var b strings.Builder
	b.WriteString(meta + "\n")
	seq, i := 1, 0
	line := func(v map[string]any) {
		v["seq"] = seq
		seq++
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	call := func(tool, query, result string) {
		line(map[string]any{"t": "call", "i": i, "ts": "2026-12-07T02:15:19.451Z", "tool": tool, "args": map[string]any{"query": query}})
		line(map[string]any{"t": "result", "i": i, "ok": true, "ms": 1, "body": map[string]any{"content": []any{map[string]any{"type": "text", "text": result}}, "isError": false}})
		i++
	}
	for k := range n {
		var rows []string
		total := 0
		for r := range 20 {
			status := "archived"
			if r == 7 {
				status = "active"
			}
			amount := 100 + r*k%97
			total += amount
			rows = append(rows, fmt.Sprintf(`{"id":%d,"name":"Row %d-%d","status":"%s","amount":%d}`, r+1, k, r, status, amount))
		}
		line(map[string]any{"t": "note", "ts": "2026-12-07T02:15:19.450Z", "text": "Find the active row"})
		call("read_query", fmt.Sprintf("SELECT id, name, status, amount FROM t%d", k), "["+strings.Join(rows, ",")+"]")
		call("read_query", fmt.Sprintf("SELECT id FROM ledger%d WHERE status = 'done'", k), "[]")
		var many []string
		for m := range 40 {
			many = append(many, fmt.Sprint(m%9+1))
		}
		line(map[string]any{"t": "note", "ts": "2026-12-07T02:15:19.450Z", "text": "Update it"})
		call("write_query", fmt.Sprintf("UPDATE ledger%d SET qty = 88, n = 20, total = %d, note = '%s' WHERE id = 8", k, total, strings.Join(many, " ")), `{"affected_rows": 1}`)
	}
	return []byte(b.String())
}

// TestRowFactsLinear: the facts read from rows cost work linear in the
// trace (allocations, which do not depend on the machine's load).
func TestRowFactsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 16,500 calls")
	}
	work := func(n int) (allocs, bytes uint64) {
		path := filepath.Join(t.TempDir(), "rows.jsonl")
		if err := os.WriteFile(path, rowsTrace(t, n), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		streamFile(t, path, io.Discard)
		goruntime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
	}
	// The small trace takes every path the large ones are timed on.
	small := filepath.Join(t.TempDir(), "small.jsonl")
	if err := os.WriteFile(small, rowsTrace(t, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	var skill strings.Builder
	streamFile(t, small, &skill)
	for _, w := range []string{`WHERE id = {{id}}`, `total = {{total}}`, `n = {{count}}`, `- assert: count(json) == 0`,
		`- bind: id = only(json where status == "active").id`, `- assert: only(json where status == "active").amount == 100`, `it sends the numbers 88, 1, 2`} {
		if !strings.Contains(skill.String(), w) {
			t.Errorf("the small trace's skill lacks %q", w)
		}
	}
	// A number bind in a condition would compare text with a number and
	// always hold: it is not written.
	if w := `count(json where id == "{{id}}")`; strings.Contains(skill.String(), w) {
		t.Errorf("the small trace's skill holds %q", w)
	}
	if t.Failed() {
		t.Logf("skill:\n%s", skill.String())
	}
	a1, b1 := work(500)
	a10, b10 := work(5000)
	t.Logf("allocations 500→5000 pairs: %d → %d (×%.2f); bytes %d → %d (×%.2f)", a1, a10, float64(a10)/float64(a1), b1, b10, float64(b10)/float64(b1))
	if float64(a10) > 12*float64(a1) || float64(b10) > 12*float64(b1) {
		t.Errorf("work grew more than 12× from 500 to 5000 pairs")
	}
}
