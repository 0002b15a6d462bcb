package scan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks generate their history into b.TempDir() before timing,
// so they never run in a plain `go test`; run them with
//
//	go test ./record/session/scan -run XXX -bench Scan -benchmem
//
// BenchmarkScan1GB is the target: 2,000 sessions, 1 GB of transcripts.
// BenchmarkScan100MB is the same shape at a tenth of the size, to show
// that the peak heap does not grow with the history.

func BenchmarkScan1GB(b *testing.B)   { benchmarkScan(b, 2000, 500<<10) }
func BenchmarkScan100MB(b *testing.B) { benchmarkScan(b, 200, 500<<10) }

func benchmarkScan(b *testing.B, sessions, size int) {
	dir := b.TempDir()
	total := generateHistory(b, dir, sessions, size)
	b.SetBytes(total)
	b.ReportAllocs()
	runtime.GC()
	peak := watchHeap()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Scan(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
	if res.Sessions != sessions || len(res.Replayable) != sessions/2 {
		b.Fatalf("scanned %d sessions, %d replayable; want %d, %d", res.Sessions, len(res.Replayable), sessions, sessions/2)
	}
}

// watchHeap samples the live heap until the returned func is called, and
// returns the highest sample.
func watchHeap() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak.Load()
	}
}

// generateHistory writes sessions transcripts of about size bytes each,
// shaped like real Claude Code sessions: a prompt, attachments, file
// reads with large results, shell calls, and — in every other session —
// MCP calls with JSON results. It returns the bytes written.
func generateHistory(b *testing.B, dir string, sessions, size int) int64 {
	b.Helper()
	var code strings.Builder
	for code.Len() < 24<<10 {
		code.WriteString("func handler(w http.ResponseWriter, r *http.Request) {\n\tfmt.Fprintf(w, \"hello, %s\\n\", r.URL.Query().Get(\"name\"))\n}\n")
	}
	bigResult, _ := json.Marshal(code.String())
	rows := make([]string, 40)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"id":"bk_%04d","guest":"Guest %d","status":"confirmed","nights":%d}`, i, i, i%7+1)
	}
	mcpResult, _ := json.Marshal(`{"bookings":[` + strings.Join(rows, ",") + `]}`)
	var total int64
	for s := range sessions {
		path := filepath.Join(dir, fmt.Sprintf("-home-dev-project-%02d", s%40), fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", s, s))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		n := writeSession(w, s, size, string(bigResult), string(mcpResult))
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		total += int64(n)
	}
	return total
}

// writeSession writes one generated session and returns its size.
func writeSession(w *bufio.Writer, s, size int, bigResult, mcpResult string) int {
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", s, s)
	n := 0
	put := func(format string, args ...any) {
		k, _ := fmt.Fprintf(w, format+"\n", args...)
		n += k
	}
	put(`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-07-19T12:50:00.000Z","sessionId":%q,"content":"tidy the handlers"}`, id)
	put(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"tidy the handlers and check this week's bookings"},"uuid":"u0","timestamp":"2026-07-19T12:50:01.000Z","cwd":"/home/dev/project-%02d","sessionId":%q,"version":"2.1.332"}`, s%40, id)
	put(`{"type":"attachment","attachment":{"type":"date","date":"2026-07-19"},"timestamp":"2026-07-19T12:50:01.010Z","sessionId":%q}`, id)
	for k := 0; n < size; k++ {
		put(`{"parentUuid":"a%d","isSidechain":false,"message":{"content":[{"type":"text","text":"Reading the handler file next, then I will run the tests."},{"id":"toolu_r%d","input":{"file_path":"/home/dev/project/handler_%d.go"},"name":"Read","type":"tool_use"}],"id":"msg_%d","model":"claude-opus-5-5","role":"assistant","type":"message"},"type":"assistant","uuid":"a%d","timestamp":"2026-07-19T12:51:%02d.000Z","sessionId":%q}`, k, k, k, k, k, k%60, id)
		put(`{"parentUuid":"a%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_r%d","type":"tool_result","content":%s}]},"uuid":"u%d","timestamp":"2026-07-19T12:51:%02d.200Z","sessionId":%q}`, k, k, bigResult, k, k%60, id)
		put(`{"parentUuid":"u%d","isSidechain":false,"message":{"content":[{"id":"toolu_b%d","input":{"command":"go test ./...","description":"Run the tests"},"name":"Bash","type":"tool_use"}],"role":"assistant","type":"message"},"type":"assistant","uuid":"b%d","timestamp":"2026-07-19T12:52:%02d.000Z","sessionId":%q}`, k, k, k, k%60, id)
		put(`{"parentUuid":"b%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_b%d","type":"tool_result","content":"ok  \tgithub.com/dev/project\t0.412s","is_error":false}]},"timestamp":"2026-07-19T12:52:%02d.500Z","sessionId":%q}`, k, k, k%60, id)
		if s%2 == 0 {
			put(`{"parentUuid":"c%d","isSidechain":false,"message":{"content":[{"id":"toolu_m%d","input":{"from":"2026-07-13","status":["confirmed"]},"name":"mcp__caldiy__list_bookings","type":"tool_use"}],"role":"assistant","type":"message"},"type":"assistant","timestamp":"2026-07-19T12:53:%02d.000Z","sessionId":%q}`, k, k, k%60, id)
			put(`{"parentUuid":"m%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_m%d","type":"tool_result","content":[{"type":"text","text":%s}]}]},"timestamp":"2026-07-19T12:53:%02d.140Z","sessionId":%q}`, k, k, mcpResult, k%60, id)
		}
		put(`{"type":"attachment","attachment":{"type":"todo_reminder","content":[],"itemCount":0},"timestamp":"2026-07-19T12:54:00.000Z","sessionId":%q}`, id)
	}
	return n
}
