package session_test

import (
	"bytes"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/record/session"
)

// FuzzRead: no input makes the reader panic, Keep never changes the
// verdict, and whenever a session has replayable calls its trace reads
// back through the trace package and the compiler does not panic on it.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"claude-file.jsonl", "claude-stream.jsonl", "mixed.jsonl", "none.jsonl"} {
		f.Add(readFixture(f, name))
	}
	f.Add([]byte(use("t1", "mcp__a__b", `{"x":"{{y}}"}`) + "\n" + result("t1", `{"z":1}`, false)))
	f.Add([]byte(use("t1", "http.get", `"not an object"`) + "\n" + result("t1", `null`, true)))
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, err := session.Read(bytes.NewReader(data), session.Options{Keep: true, MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		light, _ := session.Read(bytes.NewReader(data), session.Options{MaxLine: 4096})
		if len(kept.Calls) != len(light.Calls) || kept.SkippedCalls() != light.SkippedCalls() || kept.Lines.Lines != light.Lines.Lines {
			t.Fatalf("Keep changed the verdict on %q", data)
		}
		if len(kept.Calls) == 0 {
			return
		}
		tr, err := kept.Trace(session.TraceOptions{Name: "f", Observed: session.ObservedFile})
		if err != nil {
			t.Fatalf("the trace of %q does not read back: %v", data, err)
		}
		if len(tr.Records) < 1+2*len(kept.Calls) {
			t.Fatalf("%d records for %d calls", len(tr.Records), len(kept.Calls))
		}
		compile.Compile(tr, compile.Options{})
	})
}

// BenchmarkRead measures the reader alone, on a transcript in memory: the
// real Claude Code fixture repeated to about 5 MB.
func BenchmarkRead(b *testing.B) {
	one := readFixture(b, "claude-file.jsonl")
	data := bytes.Repeat(one, (5<<20)/len(one))
	for _, keep := range []bool{false, true} {
		b.Run(map[bool]string{false: "scan", true: "keep"}[keep], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := session.Read(bytes.NewReader(data), session.Options{Keep: keep}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
