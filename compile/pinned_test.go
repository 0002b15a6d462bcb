package compile_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/internal/tracegen"
)

// TestLargeOutputsPinned compiles large generated traces and compares
// the SHA-256 of the printed skill and of the summary's JSON with the
// sums the compiler gave before its performance work (#20, computed with
// main at 98718f3): a change that alters any byte of a large compile
// fails here, whichever path (NewFile+Write, or Compile+format.Source,
// which compileFile requires to agree) it is in. The joined sums change
// when a trace joins testdata/traces (traces 43–46, #33: checked to give
// the old sums without them).
func TestLargeOutputsPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles about 12,000 calls")
	}
	for _, tt := range []struct {
		name           string
		src            func(t *testing.T) []byte
		skill, summary string
	}{
		{"dense-2000", func(*testing.T) []byte { return tracegen.Trace(2000, tracegen.Dense) },
			"e178e650f2ea0c384f398366db6ad4904b00a4831bf562ba5227a92f631c0e61",
			"33590e977ae95afbd5dd5538da592c64a2a26cb285693072f555db50c36714e7"},
		{"typical-300", func(*testing.T) []byte { return tracegen.Trace(300, tracegen.Typical) },
			"8b94010a8626ba1006a9d60568d6336fba919eef65ef1179dbf04d7ac39bf6ea",
			"e6fa5fecde8782d1e3e493b6bf8f048927a5d49c0466133cf79a976aa61602ad"},
		{"mixed-2000-seed1", func(*testing.T) []byte { return tracegen.Mixed(2000, 1) },
			"b83fa9c463f96028938c0e1d5304da2500c569a6b406fafeff676b38f9ad2441",
			"b668769ef35a71f774ed46bbcc7094211b6ebe0fd4b0c81853b3d58c5394642b"},
		{"mixed-3000-seed7", func(*testing.T) []byte { return tracegen.Mixed(3000, 7) },
			"0dd46219edf820131803c7a7ad3e6b47bf861bf9846731ce8aa90306440d9a28",
			"66f63620111f6ecfd84a0dd9643c49dcb0f2f8a0165f0c81b1e6e53d0d05be97"},
		{"testdata-joined-x4", func(t *testing.T) []byte { return joinedTraces(t, 4) },
			"e43bee542d4ebd12782ee1e93e058a3a07868b215c5f38e0008732ff6c6c9a06",
			"d87e74e6f266c2d35445edc4134f08694728ff6daeae8cc7db8dbca15a601a26"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name+".jsonl")
			if err := os.WriteFile(path, tt.src(t), 0o644); err != nil {
				t.Fatal(err)
			}
			out, src := compileFile(t, path)
			sum, err := json.Marshal(out.Summary)
			if err != nil {
				t.Fatal(err)
			}
			skill, summary := sha(src), sha(sum)
			t.Logf("%d steps, %d binds, %d questions; skill %d bytes", out.Summary.Steps, out.Summary.Binds, len(out.Summary.Questions), len(src))
			if skill != tt.skill {
				t.Errorf("skill SHA-256 %s, want %s", skill, tt.skill)
			}
			if summary != tt.summary {
				t.Errorf("summary SHA-256 %s, want %s", summary, tt.summary)
			}
		})
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// joinedTraces joins the golden traces into one, times over: the first
// trace's meta, then every other record with its seq and call index
// moved past those before it.
func joinedTraces(t *testing.T, times int) []byte {
	var out bytes.Buffer
	seq, base := 0, 0
	for round := 0; round < times; round++ {
		for k, path := range traceFiles(t) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			top := 0
			for _, line := range bytes.Split(raw, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				var rec map[string]json.RawMessage
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if string(rec["t"]) == `"meta"` && (round > 0 || k > 0) {
					continue
				}
				rec["seq"] = json.RawMessage(itoa(seq))
				seq++
				if iv, ok := rec["i"]; ok {
					var i int
					if err := json.Unmarshal(iv, &i); err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					rec["i"] = json.RawMessage(itoa(base + i))
					top = max(top, base+i+1)
				}
				b, err := json.Marshal(rec)
				if err != nil {
					t.Fatal(err)
				}
				out.Write(b)
				out.WriteByte('\n')
			}
			base = max(base, top)
		}
	}
	return out.Bytes()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
