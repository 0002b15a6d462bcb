package trace_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// fixedClock returns a clock that starts at a fixed instant and advances
// a millisecond a reading.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 7, 18, 14, 2, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}
}

func bptr(b bool) *bool { return &b }

func TestWriterGolden(t *testing.T) {
	dir := t.TempDir()
	w, err := trace.Create(trace.WriterOptions{
		Dir:         dir,
		Name:        "weekly-bookings",
		Wrapped:     []string{"caldiy --token " + ghToken},
		Annotations: map[string]trace.Annotations{"list_bookings": {ReadOnlyHint: bptr(true)}},
		Redactor:    redact.NewRedactor(nil, nil),
		Now:         fixedClock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.Note("I'm about to pull <this> week's bookings"))
	i, err := w.Call("list_bookings", json.RawMessage(`{"z":1, "from":"2026-07-14","apiKey":"`+hex40+`"}`), "toolu_01")
	must(t, err)
	must(t, w.Result(i, true, 142, json.RawMessage(`{"content":[{"type":"text","text":"{\"bookings\":[]}"}]}`)))
	j, err := w.Call("cancel", nil, "")
	must(t, err)
	must(t, w.Result(j, false, 3, json.RawMessage(`{"content":[{"type":"text","text":"boom"}],"isError":true}`)))
	if w.Calls() != 2 {
		t.Errorf("Calls() = %d", w.Calls())
	}
	must(t, w.Close())
	if filepath.Base(w.Path()) != "weekly-bookings-1.jsonl" {
		t.Errorf("path %s", w.Path())
	}
	got, err := os.ReadFile(w.Path())
	must(t, err)
	testutil.Golden(t).Assert(t, t.Name(), got)
	if _, err := trace.Load(w.Path()); err != nil {
		t.Errorf("the reader rejects the writer's trace: %v", err)
	}
}

func TestWriterNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "s-1.jsonl"), []byte("keep me\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "s-3.jsonl"), []byte("keep me\n"), 0o600))
	var paths []string
	for range 3 {
		w, err := trace.Create(trace.WriterOptions{Dir: dir, Name: "s"})
		must(t, err)
		paths = append(paths, filepath.Base(w.Path()))
		must(t, w.Close())
	}
	if fmt.Sprint(paths) != "[s-2.jsonl s-4.jsonl s-5.jsonl]" {
		t.Errorf("paths %v", paths)
	}
	for _, keep := range []string{"s-1.jsonl", "s-3.jsonl"} {
		if b, _ := os.ReadFile(filepath.Join(dir, keep)); string(b) != "keep me\n" {
			t.Errorf("%s was overwritten: %q", keep, b)
		}
	}
}

func TestWriterBadInput(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	must(t, os.WriteFile(blocker, nil, 0o600))
	tests := []struct{ name, dir, trace, want string }{
		{"empty name", dir, " ", "the trace name is empty"},
		{"slash", dir, "a/b", `the trace name "a/b" must not contain a slash`},
		{"dot dot", dir, "..", `the trace name ".." is not a file name`},
		{"dir is a file", filepath.Join(blocker, "traces"), "x", "creating the trace directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := trace.Create(trace.WriterOptions{Dir: tt.dir, Name: tt.trace})
			if err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestWriterMisuse(t *testing.T) {
	w, err := trace.Create(trace.WriterOptions{Dir: t.TempDir(), Name: "m"})
	must(t, err)
	if err := w.Result(7, true, 1, json.RawMessage(`{}`)); err == nil {
		t.Error("a result without a call was written")
	}
	if _, err := w.Call("x", json.RawMessage(`{"a":`), ""); err == nil {
		t.Error("malformed arguments were written")
	}
	i, err := w.Call("x", json.RawMessage(`{}`), "")
	must(t, err)
	must(t, w.Close())
	if err := w.Result(i, true, 1, json.RawMessage(`{}`)); !errors.Is(err, trace.ErrClosed) {
		t.Errorf("result after Close: %v", err)
	}
	if err := w.Note("late"); !errors.Is(err, trace.ErrClosed) {
		t.Errorf("note after Close: %v", err)
	}
	if err := w.Close(); !errors.Is(err, trace.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	tr, err := trace.Load(w.Path())
	must(t, err)
	if len(tr.Records) != 2 {
		t.Errorf("%d records; want meta and one call", len(tr.Records))
	}
}

// TestWriterConcurrent runs 100 calls at once, each with a note between
// its call and its result, and checks the file record by record.
func TestWriterConcurrent(t *testing.T) {
	w, err := trace.Create(trace.WriterOptions{Dir: t.TempDir(), Name: "c"})
	must(t, err)
	const n = 100
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			i, err := w.Call("t", json.RawMessage(fmt.Sprintf(`{"k":%d}`, k)), "")
			if err != nil {
				t.Error(err)
				return
			}
			if err := w.Note(fmt.Sprint("between ", k)); err != nil {
				t.Error(err)
			}
			if err := w.Result(i, true, 0, json.RawMessage(fmt.Sprintf(`{"k":%d}`, k))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	must(t, w.Close())
	tr, err := trace.Load(w.Path())
	must(t, err)
	checkPaired(t, tr, n)
}

// checkPaired checks seq runs 0, 1, 2… in file order and that every call
// index 0..n-1 has exactly one call before exactly one result whose body
// matches the call's arguments.
func checkPaired(t *testing.T, tr *trace.Trace, n int) {
	t.Helper()
	args := map[int]string{}
	results := 0
	for k, rec := range tr.Records {
		if rec.Sequence() != k {
			t.Fatalf("record %d has seq %d", k, rec.Sequence())
		}
		switch r := rec.(type) {
		case *trace.Call:
			args[r.I] = string(r.Args)
		case *trace.Result:
			if args[r.I] != string(r.Body) {
				t.Errorf("result %d body %s, call args %s", r.I, r.Body, args[r.I])
			}
			results++
		}
	}
	if len(args) != n || results != n {
		t.Errorf("%d calls, %d results; want %d of each", len(args), results, n)
	}
	for i := range n {
		if _, ok := args[i]; !ok {
			t.Errorf("call index %d missing", i)
		}
	}
}

// TestWriterMemoryFlat writes 100k records and checks the live heap does
// not grow with them.
func TestWriterMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100k records")
	}
	w, err := trace.Create(trace.WriterOptions{Dir: t.TempDir(), Name: "mem"})
	must(t, err)
	defer w.Close()
	args := json.RawMessage(`{"from":"2026-07-14","hotel":"h_bergen_02"}`)
	body := json.RawMessage(`{"content":[{"type":"text","text":"{\"bookings\":[{\"id\":\"bk_1\"}]}"}]}`)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	write := func(n int) {
		for range n {
			i, err := w.Call("list_bookings", args, "")
			must(t, err)
			must(t, w.Result(i, true, 1, body))
		}
	}
	write(1000)
	before := heap()
	write(50_000) // 100k records
	after := heap()
	if after > before+512<<10 {
		t.Errorf("heap grew from %d to %d bytes over 100k records", before, after)
	}
}

// BenchmarkWriter measures one call and one result record, the pair a
// proxied tool call costs while recording, and reports how much the live
// heap grew over all of them (run with -benchtime=50000x for 100k records).
func BenchmarkWriter(b *testing.B) {
	w, err := trace.Create(trace.WriterOptions{Dir: b.TempDir(), Name: "bench", Redactor: redact.NewRedactor(nil, nil)})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	args := json.RawMessage(`{"from":"2026-07-14","hotel":"h_bergen_02"}`)
	body := json.RawMessage(`{"content":[{"type":"text","text":"{\"bookings\":[{\"id\":\"bk_1\"}]}"}]}`)
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}
	before := heap()
	b.ReportAllocs()
	for b.Loop() {
		i, err := w.Call("list_bookings", args, "")
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Result(i, true, 1, body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(heap()-before, "heap-growth-B")
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestWriterToolDefs: a server's tool definitions reach the meta record
// redacted like every recorded value, and parallel to its tools.
func TestWriterToolDefs(t *testing.T) {
	secret := "sk-" + strings.Repeat("Qx9w", 8)
	dir := t.TempDir()
	def := `{"name":"search","description":"Use the key ` + secret + ` to search","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	w, err := trace.Create(trace.WriterOptions{Dir: dir, Name: "defs", Servers: []trace.Server{{Name: "s", Command: "s", Tools: []string{"search"}, ToolDefs: []json.RawMessage{json.RawMessage(def)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("the secret in a tool description reached the trace: %s", raw)
	}
	tr, err := trace.Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	got := tr.Meta.Servers[0].ToolDefs
	if len(got) != 1 || !strings.Contains(string(got[0]), `"inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}`) || !strings.Contains(string(got[0]), redact.Redacted) {
		t.Errorf("toolDefs %s; want the definition with its secret blanked", got)
	}
}
